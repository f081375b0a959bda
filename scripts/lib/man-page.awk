# Finishes a page that swift-argument-parser's generate-manual wrote, for
# scripts/build.sh:
#   awk -v page=switchboard.run -v version=1.1.0 -f scripts/lib/man-page.awk IN > OUT
# - a blank line (a paragraph break in a help text) becomes .Pp: groff's
#   mdoc warns on each blank line;
# - .Os names Switchboard's version instead of "BSD";
# - EXIT STATUS lists the command's real statuses (docs/scenarios.md)
#   instead of .Ex -std's "0 on success, and >0 if an error occurs";
# - switchboard.help gets a description (the generator leaves it empty).
$0 == "" { print ".Pp"; next }
$0 == ".Os" { print ".Os Switchboard " version; next }
$0 == ".Ex -std" && page == "switchboard.help" { print "Exits 0."; next }
$0 == ".Ex -std" {
  print ".Bl -tag -width 6n"
  print ".It 0"
  print "Success: every scenario passed (run), the call succeeded (call), no call differs"
  print "(replay), the list or the wrappers were written (routes, gen), the graph was"
  print "written and every scenario passed (graph)."
  print ".It 1"
  print "What was asked for failed: a scenario failed, or none matched --filter; the call"
  print "failed (its code and message on standard error); a call differs, or a replay was"
  print "stopped by a limit; a --setup file or a Lua target failed; an output could not be"
  print "written; Graphviz's dot is not installed, or failed (graph --format svg or png)."
  print ".It 3"
  print "The watchdog ended the run: code stuck in C in the command's own process (a"
  print "script's top level, a --setup file) past --timeout and --grace."
  print ".It 64"
  print "A usage error, found before anything runs: an option or argument that cannot be"
  print "parsed, a path that is missing or of the wrong kind, a mistyped subcommand, params"
  print "that are not a JSON object (call), a file that is not a trace (replay, graph"
  print "--from-trace)."
  print ".El"
  next
}
page == "switchboard.help" && $0 == ".Sh DESCRIPTION" {
  print
  print "Shows the help of"
  print ".Nm switchboard"
  print "or of one of its subcommands:"
  print ".Ql switchboard help run"
  print "prints what"
  print ".Ql switchboard run --help"
  print "prints. Each subcommand also has a manual page,"
  print ".Xr switchboard.run 1"
  print "and so on."
  next
}
page == "switchboard.help" && $0 == ".It Ar subcommands..." {
  print
  print "The subcommand whose help to show (run, call, replay, routes, gen, report, graph);"
  print "none for the command's own."
  next
}
{ print }
