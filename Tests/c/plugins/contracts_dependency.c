/* An ordinary library a plugin links (not a plugin): it happens to export
 * Contracts_Borrowing. Only what a plugin defines itself counts, so this
 * table must not give Target_Borrowing a contract. */
#include <switchboard.h>

const sb_contract_def Contracts_Borrowing[] = {{"hello", "-> int"}, {NULL, NULL}};
