/**
 * The largest PostgreSQL `integer` (int4), which is also GraphQL's largest Int: the bound of every
 * count a column of that type holds (stock levels, line quantities).
 */
export const INT4_MAX = 2_147_483_647;
