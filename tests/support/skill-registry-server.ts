// Loopback skill registries that speak the peer runtime's wire shapes byte for byte:
// - ClawHub-style: GET /api/v1/search?q=&limit= → {"results":[{score,slug,displayName,summary,version}]},
//   GET /api/v1/skills/{slug}
//   → {slug,displayName,summary,latestVersion:{version},moderation:{isMalwareBlocked,isSuspicious}},
//   GET /api/v1/download?slug=&version= → the zip.
// - GitHub-style (an enterprise host, under /api/v3): GET /repos/{o}/{r} → {default_branch},
//   GET /repos/{o}/{r}/zipball/{ref}
//   → 302 to /codeload/{o}/{r}/zip/{ref} → the zip; GET /search/code?q=… filename:SKILL.md
//   → {items:[{path,score,repository}]}.
// Every request is recorded (path, query, headers); `gauge` counts requests in flight across servers that share it.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RegistrySkill {
  slug: string;
  displayName?: string;
  summary: string;
  /** Zip bytes per version. */
  versions: Record<string, Uint8Array>;
  latest: string;
  score?: number;
  malware?: boolean;
  suspicious?: boolean;
}

export interface RecordedRequest {
  path: string;
  query: Record<string, string>;
  authorization?: string;
}

export interface Gauge {
  current: number;
  max: number;
}

export interface RegistryServer {
  url: string;
  requests: RecordedRequest[];
  skills: Map<string, RegistrySkill>;
  /** Milliseconds every answer waits (a slow registry). */
  delayMs: number;
  close(): Promise<void>;
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

function zip(res: ServerResponse, bytes: Uint8Array): void {
  res
    .writeHead(200, { 'content-type': 'application/zip', 'content-length': String(bytes.length) })
    .end(Buffer.from(bytes));
}

async function serve(
  handle: (req: IncomingMessage, res: ServerResponse, url: URL) => void,
  state: { delayMs: number; requests: RecordedRequest[]; gauge: Gauge },
): Promise<{ server: Server; url: string }> {
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://registry');
    state.requests.push({
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      ...(req.headers.authorization ? { authorization: req.headers.authorization } : {}),
    });
    state.gauge.current += 1;
    state.gauge.max = Math.max(state.gauge.max, state.gauge.current);
    res.on('close', () => {
      state.gauge.current -= 1;
    });
    const answer = (): void => handle(req, res, url);
    if (state.delayMs > 0) setTimeout(answer, state.delayMs).unref();
    else answer();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

function closer(server: Server): () => Promise<void> {
  return () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
}

function matches(skill: RegistrySkill, query: string): boolean {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean);
  const text = `${skill.slug} ${skill.displayName ?? ''} ${skill.summary}`.toLowerCase();
  return words.some((w) => text.includes(w));
}

export async function startClawHubServer(
  options: { skills?: RegistrySkill[]; delayMs?: number; gauge?: Gauge } = {},
): Promise<RegistryServer> {
  const skills = new Map((options.skills ?? []).map((s) => [s.slug, s]));
  const state = {
    delayMs: options.delayMs ?? 0,
    requests: [] as RecordedRequest[],
    gauge: options.gauge ?? { current: 0, max: 0 },
  };
  const { server, url } = await serve((_req, res, url) => {
    if (url.pathname === '/api/v1/search') {
      const limit = Number(url.searchParams.get('limit') ?? 10);
      const found = [...skills.values()].filter((s) => matches(s, url.searchParams.get('q') ?? ''));
      const results = found
        .sort((a, b) => (b.score ?? 1) - (a.score ?? 1))
        .slice(0, limit)
        .map((s) => ({
          score: s.score ?? 1,
          slug: s.slug,
          displayName: s.displayName ?? null,
          summary: s.summary,
          version: s.latest,
        }));
      return json(res, 200, { results });
    }
    const meta = /^\/api\/v1\/skills\/([^/]+)$/.exec(url.pathname);
    if (meta) {
      const skill = skills.get(decodeURIComponent(meta[1]!));
      if (!skill) return json(res, 404, { error: 'skill not found' });
      return json(res, 200, {
        slug: skill.slug,
        displayName: skill.displayName ?? skill.slug,
        summary: skill.summary,
        latestVersion: { version: skill.latest },
        moderation: { isMalwareBlocked: skill.malware === true, isSuspicious: skill.suspicious === true },
      });
    }
    if (url.pathname === '/api/v1/download') {
      const skill = skills.get(url.searchParams.get('slug') ?? '');
      const bytes = skill?.versions[url.searchParams.get('version') ?? skill.latest];
      return bytes ? zip(res, bytes) : json(res, 404, { error: 'version not found' });
    }
    json(res, 404, { error: 'no such route' });
  }, state);
  return {
    url,
    skills,
    get requests() {
      return state.requests;
    },
    get delayMs() {
      return state.delayMs;
    },
    set delayMs(ms: number) {
      state.delayMs = ms;
    },
    close: closer(server),
  };
}

export interface GitHubRepo {
  /** `owner/repo`. */
  fullName: string;
  description: string;
  defaultBranch: string;
  /** Zip bytes (with GitHub's `owner-repo-sha/` top folder) per ref. */
  archives: Record<string, Uint8Array>;
  /** Paths of SKILL.md files code search finds in it. */
  skillFiles: string[];
}

/** An enterprise-style GitHub host: `base_url` is the server's URL, its API answers under `/api/v3`. */
export async function startGitHubServer(
  repos: GitHubRepo[],
): Promise<RegistryServer & { repos: Map<string, GitHubRepo> }> {
  const byName = new Map(repos.map((r) => [r.fullName, r]));
  const state = { delayMs: 0, requests: [] as RecordedRequest[], gauge: { current: 0, max: 0 } };
  const { server, url } = await serve((_req, res, url) => {
    const path = url.pathname;
    if (path === '/api/v3/search/code') {
      const query = (url.searchParams.get('q') ?? '').replace(/\s*filename:SKILL\.md\s*/, '').toLowerCase();
      const items = [...byName.values()]
        .filter((r) => r.description.toLowerCase().includes(query) || r.fullName.includes(query))
        .flatMap((r) =>
          r.skillFiles.map((file) => ({
            path: file,
            score: 2,
            repository: {
              full_name: r.fullName,
              name: r.fullName.split('/')[1],
              description: r.description,
              default_branch: r.defaultBranch,
            },
          })),
        );
      return json(res, 200, { total_count: items.length, items });
    }
    const repo = /^\/api\/v3\/repos\/([^/]+\/[^/]+)$/.exec(path);
    if (repo) {
      const found = byName.get(repo[1]!);
      return found
        ? json(res, 200, { full_name: found.fullName, default_branch: found.defaultBranch })
        : json(res, 404, { message: 'Not Found' });
    }
    const zipball = /^\/api\/v3\/repos\/([^/]+\/[^/]+)\/zipball\/(.+)$/.exec(path);
    if (zipball) {
      res.writeHead(302, { location: `/codeload/${zipball[1]}/zip/${zipball[2]}` }).end();
      return;
    }
    const codeload = /^\/codeload\/([^/]+\/[^/]+)\/zip\/(.+)$/.exec(path);
    if (codeload) {
      const bytes = byName.get(codeload[1]!)?.archives[decodeURIComponent(codeload[2]!)];
      return bytes ? zip(res, bytes) : json(res, 404, { message: 'Not Found' });
    }
    json(res, 404, { message: 'Not Found' });
  }, state);
  return {
    url,
    repos: byName,
    skills: new Map(),
    get requests() {
      return state.requests;
    },
    delayMs: 0,
    close: closer(server),
  };
}
