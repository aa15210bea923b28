// StashDaemon
