/* A Target_ symbol that is not a table: 4 bytes, where an sb_target_def is
 * much larger. Reading it as a table would read past its end; loading it
 * must be refused by the symbol's size. */
const char Target_Tiny[4] = {1, 0, 0, 0};
