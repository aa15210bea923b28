print("stash-bench")
