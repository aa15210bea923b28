print("stashd")
