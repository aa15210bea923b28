// StashEngine
