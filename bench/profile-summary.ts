/**
 * Summarises a V8 .cpuprofile (node --cpu-prof; `BENCH_CPU_PROF=graphql npm run bench`
 * writes one under bench/results/profiles/):
 *
 *   npx tsx bench/profile-summary.ts <file.cpuprofile> [--top 25] [--fn <regexp>]...
 *
 * Prints, as shares of the busy time (every sample but idle): self time by area (a
 * package of node_modules, a directory of src/, Node internals, GC, native code), the
 * time each area is anywhere on the stack (inclusive; a sample counts once per area), the
 * top functions by self time, the inclusive time of the frames matching each --fn
 * (function name, or "name file:line"), and with --callers <regexp> the call paths
 * (--depth frames up, 3 by default) of the self time of the frames it matches.
 */
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  children?: number[];
}

interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

const args = process.argv.slice(2);
const file = args.find((a, i) => !a.startsWith('--') && !args[i - 1]?.startsWith('--'));
if (!file) {
  console.error('usage: tsx bench/profile-summary.ts <file.cpuprofile> [--top N] [--fn regexp]...');
  process.exit(2);
}
const option = (name: string) => args.flatMap((a, i) => (a === name && args[i + 1] ? [args[i + 1]!] : []));
const top = Number(option('--top')[0] ?? 25);
const patterns = option('--fn').map((p) => new RegExp(p));
const callers = option('--callers').map((p) => new RegExp(p));
const depth = Number(option('--depth')[0] ?? 3);

const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
const byId = new Map(profile.nodes.map((node) => [node.id, node]));
const parentOf = new Map<number, number>();
for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id);

/** The area of a frame: a package, a src/ directory, Node, GC, idle, native. */
function areaOf(node: ProfileNode): string {
  const { url, functionName } = node.callFrame;
  if (functionName === '(garbage collector)') return '(garbage collector)';
  if (functionName === '(idle)') return '(idle)';
  if (functionName === '(program)') return '(program)';
  if (functionName === '(root)') return '(root)';
  if (!url) return '(native/builtins)';
  const modules = url.lastIndexOf('node_modules/');
  if (modules >= 0) {
    const parts = url.slice(modules + 'node_modules/'.length).split('/');
    return parts[0]!.startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0]!;
  }
  if (url.startsWith('node:')) return `node:${url.slice(5).split('/').slice(0, 2).join('/')}`;
  const path = url.startsWith('file://') ? new URL(url).pathname : url;
  const local = relative(process.cwd(), path);
  const parts = local.split('/');
  if (parts[0] === 'src' || parts[0] === 'schema' || parts[0] === 'bench') return parts.slice(0, Math.min(parts.length - 1, 3)).join('/');
  return local;
}

function frameName(node: ProfileNode): string {
  const { functionName, url, lineNumber } = node.callFrame;
  if (!url) return functionName || '(anonymous)';
  const modules = url.lastIndexOf('node_modules/');
  const where =
    modules >= 0
      ? url.slice(modules + 'node_modules/'.length)
      : url.startsWith('file://')
        ? relative(process.cwd(), new URL(url).pathname)
        : url;
  return `${functionName || '(anonymous)'} ${where}:${lineNumber + 1}`;
}

const self = new Map<string, number>();
const selfByFrame = new Map<string, number>();
const inclusiveArea = new Map<string, number>();
const inclusiveFn = new Map<string, number>();
const callerPaths = new Map<string, number>();
let total = 0;
let idle = 0;
const add = (map: Map<string, number>, key: string, value: number) => map.set(key, (map.get(key) ?? 0) + value);

// timeDeltas[i] is the time before sample i; the time after it (delta i + 1) is its own.
for (let i = 0; i < profile.samples.length; i++) {
  const delta = profile.timeDeltas[i + 1] ?? 0;
  const leaf = byId.get(profile.samples[i]!)!;
  total += delta;
  const area = areaOf(leaf);
  if (area === '(idle)') {
    idle += delta;
    continue;
  }
  add(self, area, delta);
  add(selfByFrame, frameName(leaf), delta);
  const areas = new Set<string>();
  const matched = new Set<RegExp>();
  for (let node: ProfileNode | undefined = leaf; node; node = byId.get(parentOf.get(node.id) ?? -1)) {
    areas.add(areaOf(node));
    for (const pattern of patterns) if (pattern.test(frameName(node))) matched.add(pattern);
  }
  for (const a of areas) add(inclusiveArea, a, delta);
  for (const pattern of callers) {
    if (!pattern.test(frameName(leaf))) continue;
    const path: string[] = [];
    for (let node = byId.get(parentOf.get(leaf.id) ?? -1); node && path.length < depth; node = byId.get(parentOf.get(node.id) ?? -1))
      path.push(frameName(node));
    add(callerPaths, `${pattern.source} <- ${path.join(' <- ')}`, delta);
  }
  for (const pattern of matched) add(inclusiveFn, pattern.source, delta);
}

const busy = total - idle;
const pct = (us: number) => `${((100 * us) / busy).toFixed(1).padStart(5)}%`;
const ms = (us: number) => `${(us / 1000).toFixed(0).padStart(7)} ms`;
const table = (title: string, map: Map<string, number>, limit = Infinity) => {
  console.log(`\n${title}`);
  for (const [key, value] of [...map].sort((a, b) => b[1] - a[1]).slice(0, limit)) console.log(`${pct(value)} ${ms(value)}  ${key}`);
};

console.log(
  `${file}\nsampled ${(total / 1e6).toFixed(1)} s, busy ${(busy / 1e6).toFixed(1)} s (${((100 * busy) / total).toFixed(0)}%), idle ${(idle / 1e6).toFixed(1)} s`,
);
table('self time by area (% of busy)', self);
table('inclusive time by area (on the stack; % of busy)', inclusiveArea, 30);
table(`top ${top} functions by self time`, selfByFrame, top);
if (patterns.length) table('inclusive time of --fn patterns', inclusiveFn);
if (callers.length) table('callers of --callers frames (self time)', callerPaths, top);
