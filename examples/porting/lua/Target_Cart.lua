-- CTMediator's Target_Cart class: a file on sb.path, found by the name
-- "Cart". It returns a constructor, so each instance is one cart.
return function()
  local items, total = 0, 0
  return {
    -- - (NSInteger)Action_add:(NSDictionary *)params
    add = { params = "item: string, price: double = 0.0", result = "int",
            fn = function(p) items = items + 1; total = total + p.price; return items end },
    -- - (CGFloat)Action_total:(NSDictionary *)params
    total = { result = "double", fn = function() return total end },
    -- - (BOOL)Action_isEmpty:(NSDictionary *)params
    isEmpty = { result = "bool", fn = function() return items == 0 end },
    -- - (void)Action_nativeClear:(NSDictionary *)params
    nativeClear = function() items, total = 0, 0 end,
  }
end
