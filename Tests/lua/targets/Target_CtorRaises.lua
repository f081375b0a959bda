-- A constructor that raises: the file loads, its constructor does not.
return function() error("no instance today") end
