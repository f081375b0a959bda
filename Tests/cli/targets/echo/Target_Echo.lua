-- Echoes its params; fails with a message that changes each time.
return { echo = function(params) return params end,
         fail = function() error("a message that changes: " .. tostring({})) end }
