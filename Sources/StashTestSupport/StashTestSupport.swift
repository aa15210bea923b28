// StashTestSupport
