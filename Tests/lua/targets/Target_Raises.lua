error("this target refuses to load")
