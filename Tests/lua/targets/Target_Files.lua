-- Found on sb.path by name: perform("Files", ...) loads this file once.
local loads = (_G.__files_loads or 0) + 1
_G.__files_loads = loads -- a test-only counter of how often the file ran

local greeting = "hello from a file"

return {
  hello = function(params) return greeting .. (params.suffix or "") end,
  loads = function() return loads end,
  notFound = function() return "Files has no such action" end,
}
