import Switchboard
print(Mediator.shared.perform(target: "X", action: "y"))
