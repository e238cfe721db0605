/**
 * media:prune: remove media rows whose record is gone (whose model or field is gone: with --removed-fields),
 * and stored files no row names.
 * media:migrate --to s3: copy local files to the bucket (resumable, sizes verified).
 */
import { readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { Presets, SingleBar } from 'cli-progress';
import type { Command } from 'commander';
import { LocalDiskStorage } from '../../core/media/local-disk';
import { migrateToS3 } from '../../core/media/migrate-to-s3';
import { S3Storage } from '../../core/media/s3';
import { tmpDirOf } from '../../core/media/intake';
import { MediaService } from '../../core/media/service';
import { storageOf } from '../../core/media/storage-of';
import { UsageError } from '../../core/errors/usage-error';
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
    .description('remove orphan media rows (record gone, file missing; model or field gone with --removed-fields) and stored files no row names')
    .option('--grace <minutes>', 'leave files younger than this alone (uploads in flight)', '60')
    .option('--dry-run', 'only report what would be removed')
    .option('--removed-fields', 'also remove the media of fields the models no longer have (a media attribute removed or renamed); kept otherwise')
    .action(async (opts: { grace: string; dryRun?: boolean; removedFields?: boolean }) => {
      const minutes = opts.grace.trim() === '' ? Number.NaN : Number(opts.grace);
      if (!Number.isFinite(minutes * 60_000) || minutes < 0) throw new UsageError('--grace: minutes, a number ≥ 0');
      const { config, db, registry, log } = cliDeps();
      const storage = storageOf(config, log);
      const media = new MediaService({ storage, registry, publicUrl: config.publicUrl, log });
      const graceMs = minutes * 60_000;
      const dryRun = opts.dryRun === true;
      const report = await media.prune(db, { graceMs, dryRun, removedFields: opts.removedFields === true });
      const tmp = await pruneTmp(tmpDirOf(config.uploadsDir), Date.now() - graceMs, dryRun);
      storage.close?.();
      console.log(`${dryRun ? 'would remove' : 'removed'} ${report.rows} media row(s), ${report.files} file(s) and ${tmp} temporary file(s)`);
      if (report.kept.length > 0) {
        const fields = report.kept.map((k) => `${k.model}.${k.field}: ${k.files}`).join(', ');
        console.log(`kept the media of fields the models no longer have (${fields}); run with --removed-fields to remove them`);
      }
    });

  program
    .command('media:migrate')
    .description('copy the files of the local uploads folder to the S3 bucket (S3_* settings), keeping their keys; resumable, sizes verified')
    .requiredOption('--to <driver>', 'the target storage (s3)')
    .option('--concurrency <n>', 'files copied at once', '4')
    .option('--remove-local', 'remove each local file once its object is verified')
    .action(async (opts: { to: string; concurrency: string; removeLocal?: boolean }) => {
      // refused input: exit 2, nothing copied (admin-cli/index.ts)
      if (opts.to !== 's3') throw new UsageError(`--to: "${opts.to}" is not a target (s3)`);
      const concurrency = /^\s*\d+\s*$/.test(opts.concurrency) ? Number(opts.concurrency) : Number.NaN;
      if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 64) throw new UsageError('--concurrency: a whole number from 1 to 64');
      const { config, db, log } = cliDeps();
      if (!config.uploads.s3) throw new Error('S3_BUCKET (and the other S3_* settings) must be set to migrate to s3');
      const local = new LocalDiskStorage(config.uploadsDir);
      const s3 = new S3Storage(config.uploads.s3, log);
      // Drawn on a terminal only (cli-progress writes nothing to a pipe).
      const bar = new SingleBar({ format: 'media:migrate [{bar}] {value}/{total} files, {mb} MB', stream: process.stderr }, Presets.shades_classic);
      let mb = 0;
      try {
        const report = await migrateToS3(db, local, s3, {
          concurrency,
          removeLocal: opts.removeLocal === true,
          onStart: (total) => bar.start(total, 0, { mb: '0' }),
          onFile: (bytes) => {
            mb += bytes / 2 ** 20;
            bar.increment(1, { mb: mb.toFixed(1) });
          },
        });
        bar.stop();
        console.log(`${report.copied} file(s) copied (${report.bytes} bytes), ${report.skipped} already in the bucket, ${report.failed.length} failed, of ${report.total}`);
        for (const f of report.failed) console.error(`failed: ${f.key}: ${f.reason}`);
        if (report.failed.length > 0) throw new Error(`${report.failed.length} file(s) not migrated; run the command again once fixed (copied files are skipped)`);
      } finally {
        bar.stop();
        s3.close();
      }
    });
}
