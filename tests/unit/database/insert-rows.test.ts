/**
 * Multi-row INSERTs in pieces every database takes (database/dialects/insert-rows.ts): never more rows
 * than SQLite's 500-term compound SELECT allows, never more values than its 32,766 variables.
 */
import { expect } from 'chai';
import { INSERT_CHUNK_ROWS, insertChunkRows, MAX_BINDINGS } from '../../../database/dialects/insert-rows';

describe('insertChunkRows', () => {
  it('join rows (2 columns) and media rows (9) go 400 at a time: below 500 rows', () => {
    expect(INSERT_CHUNK_ROWS).to.be.below(500);
    expect(insertChunkRows(2)).to.equal(400);
    expect(insertChunkRows(9)).to.equal(400);
  });

  it('wide rows: as many as fit in 32,766 values, at least one', () => {
    expect(insertChunkRows(100)).to.equal(327);
    expect(insertChunkRows(100) * 100).to.be.at.most(MAX_BINDINGS);
    expect(insertChunkRows(MAX_BINDINGS)).to.equal(1);
    expect(insertChunkRows(MAX_BINDINGS + 1)).to.equal(1);
    expect(insertChunkRows(0)).to.equal(400);
  });
});
