// StashStore
