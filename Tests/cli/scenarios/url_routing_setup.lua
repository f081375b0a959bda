-- The --setup of tests_08_call_routes_gen/test_03_url_routing.sh: a converter, patterns (one from
-- JLRoutes' testOptionalRoutesAtStart), and a fallback for the scheme.
sb.converter("greeting", function(s) if s ~= "nobody" then return "Hello, " .. s .. "!" end end)
sb.route("shop://hello/<greeting:name>", function(p) return p.name end)
sb.route("shop://item/<int:id>", function(p) return { id = p.id, pattern = p["switchboard.pattern"] } end)
sb.route("foo://(rest/)(app/):object/:id", function(p) return p.object .. "/" .. p.id end)
sb.unmatched("shop", function(u) return "no page for " .. u.url end)
