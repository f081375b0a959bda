# What one scenario registers, routes, caches or sets is gone before the next.
run isolation run "${load[@]}" $scenarios/isolation.lua
check "registrations, routes, caches and globals do not leak between scenarios" status_is isolation 0
