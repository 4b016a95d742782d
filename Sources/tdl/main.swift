print("tdl")
