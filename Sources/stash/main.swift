print("stash")
