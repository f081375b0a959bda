/* A loadable shared object that exports no Target_ table. */
int empty_plugin_marker = 1;
