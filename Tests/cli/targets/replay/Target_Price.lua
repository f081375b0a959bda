-- A build target that calls a target the script registers (Tax): replay's
-- tests (test_06_steps.sh) change it to show the replay seeing the change.
return {
  quote = function(p)
    local tax = sb.perform("Tax", "rate", { country = p.country })
    return { total = p.net + p.net * tax.rate // 100 }
  end,
}
