-- A helper module the scenarios require (found beside the script).
local M = {}
function M.double(x) return 2 * x end
function M.check_positive(x) expect(x > 0).to_be(true) end
return M
