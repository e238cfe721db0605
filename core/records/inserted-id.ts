/** The id an INSERT … RETURNING id answers (knex): an object on PostgreSQL and SQLite, a number on MariaDB. */
export const insertedId = (rows: unknown): number => {
  const [first] = rows as ({ id: number } | number)[];
  return typeof first === 'object' ? Number(first.id) : Number(first);
};
