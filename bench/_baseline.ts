import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Today's code beside the new one in the same benchmark run: a temporary git worktree of an earlier
 * commit, sharing this checkout's node_modules, that a benchmark indexes, keys and starts with that
 * commit's own CLIs and service, so both versions are timed on the same machine under the same
 * load minutes apart (issue 24's latency target is relative to the code before it).
 */

/**
 * The commit before issue 24's ranking work (natural questions, authority, site hints): its latency
 * target, "no more than 1.3× today's p50 and p99", is measured against this commit.
 * `BENCH_BASELINE=<git ref>` measures another commit instead; `BENCH_BASELINE=none` skips it.
 */
export const BASELINE_BEFORE_ISSUE_24 = '851d905';

export type Baseline = {
  /** The ref as asked for, and the commit it names (short). */
  ref: string;
  commit: string;
  /** The worktree's root: run its server/ and CLIs from here. */
  root: string;
  /** A scratch folder beside the worktree, removed with it (the baseline's DATA_DIR goes here). */
  scratch: string;
  /** Removes the worktree and the scratch folder; safe to call more than once. */
  remove: () => void;
};

/** The baseline the environment asks for, checked out in a temporary worktree of `repo`, or why there is none. */
export function checkoutBaseline(repo: string): Baseline | { skipped: string } {
  const ref = process.env.BENCH_BASELINE?.trim() || BASELINE_BEFORE_ISSUE_24;
  if (ref === 'none') return { skipped: 'BENCH_BASELINE=none' };
  const git = (...args: string[]) => spawnSync('git', ['-C', repo, ...args], { encoding: 'utf8' });
  const top = git('rev-parse', '--show-toplevel');
  if (top.error) return { skipped: `git cannot be run (${top.error.message})` };
  if (top.status !== 0) return { skipped: `${repo} is not a git checkout (${top.stderr.trim()})` };
  const resolved = git('rev-parse', '--verify', '--quiet', '--short', `${ref}^{commit}`);
  if (resolved.status !== 0) return { skipped: `${ref} names no commit in this repository` };
  const commit = resolved.stdout.trim();

  const scratch = mkdtempSync(join(tmpdir(), 'periscope-bench-baseline-'));
  const root = join(scratch, 'tree');
  const added = git('worktree', 'add', '--detach', root, commit);
  if (added.status !== 0) {
    rmSync(scratch, { recursive: true, force: true });
    return { skipped: `git worktree add failed (${added.stderr.trim()})` };
  }
  let removed = false;
  const remove = () => {
    if (removed) return;
    removed = true;
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    // The link first, by itself, so that nothing that empties the worktree can reach the checkout's own node_modules.
    try {
      unlinkSync(join(root, 'node_modules'));
    } catch {
      // never made, or already gone
    }
    const gone = git('worktree', 'remove', '--force', root);
    rmSync(scratch, { recursive: true, force: true });
    if (gone.status !== 0) git('worktree', 'prune');
  };
  // A run stopped with Ctrl-C skips the caller's finally; the worktree must not stay registered in the repository.
  const onSignal = (signal: NodeJS.Signals) => {
    remove();
    process.kill(process.pid, signal);
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    symlinkSync(join(repo, 'node_modules'), join(root, 'node_modules'), 'dir');
  } catch (err) {
    remove();
    return { skipped: `cannot link node_modules into the worktree (${(err as Error).message})` };
  }
  return { ref, commit, root, scratch, remove };
}
