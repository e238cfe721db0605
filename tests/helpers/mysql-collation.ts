/** The collation test databases are created with (the service creates every table with it anyway). */
export const MYSQL_TEST_COLLATION = process.env.TEST_MYSQL_COLLATION ?? 'utf8mb4_nopad_bin';
