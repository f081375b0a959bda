-- A constructor that returns something other than a table of actions.
return function() return 42 end
