// StashClient
