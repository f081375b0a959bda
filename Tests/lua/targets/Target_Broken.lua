-- A syntax error, on purpose.
return { hello = function( end }
