// StashFetch
