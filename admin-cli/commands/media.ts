/** media:prune: remove media rows whose record, model or field is gone, and stored files no row names. */
import { readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Command } from 'commander';
import { tmpDirOf } from '../../core/media/intake';
import { MediaService } from '../../core/media/service';
import { storageOf } from '../../core/media/storage-of';
import { cliDeps } from '../boot';

/** Temporary upload files older than the grace period (left by a crash mid-upload). */
async function pruneTmp(dir: string, cutoff: number, dryRun: boolean): Promise<number> {
  let n = 0;
  for (const f of await readdir(dir).catch(() => [] as string[])) {
    const p = join(dir, f);
    const st = await stat(p).catch(() => null);
    if (!st?.isFile() || st.mtimeMs > cutoff) continue;
    n++;
    if (!dryRun) await rm(p, { force: true });
  }
  return n;
}

export function registerMedia(program: Command): void {
  program
    .command('media:prune')
    .description('remove orphan media rows (record, model or field gone; file missing) and stored files no row names')
    .option('--grace <minutes>', 'leave files younger than this alone (uploads in flight)', '60')
    .option('--dry-run', 'only report what would be removed')
    .action(async (opts: { grace: string; dryRun?: boolean }) => {
      const minutes = Number(opts.grace);
      if (!Number.isFinite(minutes) || minutes < 0) throw new Error('--grace: minutes, a number ≥ 0');
      const { config, db, registry, log } = cliDeps();
      const storage = storageOf(config, log);
      const media = new MediaService({ storage, registry, publicUrl: config.publicUrl, log });
      const graceMs = minutes * 60_000;
      const dryRun = opts.dryRun === true;
      const report = await media.prune(db, { graceMs, dryRun });
      const tmp = await pruneTmp(tmpDirOf(config.uploadsDir), Date.now() - graceMs, dryRun);
      await media.settled();
      storage.close?.();
      console.log(`${dryRun ? 'would remove' : 'removed'} ${report.rows} media row(s), ${report.files} file(s) and ${tmp} temporary file(s)`);
    });
}
