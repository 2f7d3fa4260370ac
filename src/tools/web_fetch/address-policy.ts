// Which addresses web_fetch (and webhook delivery, src/schedules/webhook-policy.ts) may connect to. Public
// unicast only, unless the worker's config allows more: a model (or a page it reads) must not make the worker
// fetch its own admin ports, the LAN or the cloud metadata service (169.254.169.254), which is what the network
// position of a worker would otherwise offer. The check runs in the socket's own `lookup` (guardedLookup), so
// the address checked is the address connected to.
import { lookup as dnsLookup } from 'node:dns/promises';
import { BlockList, isIP, type LookupFunction } from 'node:net';

export interface WebPolicy {
  /** Loopback, private, CGNAT, ULA and link-local addresses allowed (HERMES_WEB_ALLOW_PRIVATE=1). */
  allowPrivate?: boolean;
  /**
   * Host names ("intranet.example", "*.corp.example"), IP addresses and CIDR ranges ("10.1.0.0/16") that may be
   * non-public (HERMES_WEB_ALLOW_HOSTS, comma-separated, and the config file's `web.allowHosts`).
   */
  allowHosts?: string[];
}

/** The worker's web_fetch settings (src/llm/profiles.ts loadWebConfig). */
export interface WebConfig extends WebPolicy {
  /** Bytes of body read at most (after decompression); the rest is not read. Default 2 MB. */
  maxBytes?: number;
  /** The whole fetch (DNS, connect, redirects, body). Default 20 s. */
  timeoutMs?: number;
}

type Family = 'ipv4' | 'ipv6';
/** Kinds of address a fetch never goes to, even when private ones are allowed: there is nothing to fetch there. */
const NEVER = new Set(['unspecified', 'multicast', 'reserved']);

const V4: Array<[string, number, string]> = [
  ['0.0.0.0', 8, 'unspecified'],
  ['10.0.0.0', 8, 'private'],
  ['100.64.0.0', 10, 'carrier-grade NAT'],
  ['127.0.0.0', 8, 'loopback'],
  ['169.254.0.0', 16, 'link-local'],
  ['172.16.0.0', 12, 'private'],
  ['192.0.0.0', 24, 'reserved'],
  ['192.168.0.0', 16, 'private'],
  ['198.18.0.0', 15, 'reserved'],
  ['224.0.0.0', 4, 'multicast'],
  ['240.0.0.0', 4, 'reserved'],
];
const V6: Array<[string, number, string]> = [
  ['::', 128, 'unspecified'],
  ['::1', 128, 'loopback'],
  ['::', 96, 'reserved'], // IPv4-compatible, deprecated
  ['fc00::', 7, 'unique local'],
  ['fe80::', 10, 'link-local'],
  ['fec0::', 10, 'site-local'],
  ['ff00::', 8, 'multicast'],
];

/** One BlockList per kind. IPv4 rules also cover IPv4-mapped IPv6 (BlockList does that), NAT64 and 6to4 forms. */
const KINDS: Array<{ kind: string; list: BlockList }> = (() => {
  const byKind = new Map<string, BlockList>();
  const list = (kind: string) => byKind.get(kind) ?? byKind.set(kind, new BlockList()).get(kind)!;
  for (const [net, prefix, kind] of V4) {
    const l = list(kind);
    l.addSubnet(net, prefix, 'ipv4');
    const [a, b, c, d] = net.split('.').map(Number) as [number, number, number, number];
    const hex = (x: number, y: number) => ((x << 8) | y).toString(16);
    l.addSubnet(`64:ff9b::${hex(a, b)}:${hex(c, d)}`, 96 + prefix, 'ipv6'); // NAT64 (RFC 6052)
    l.addSubnet(`2002:${hex(a, b)}:${hex(c, d)}::`, 16 + prefix, 'ipv6'); // 6to4
  }
  for (const [net, prefix, kind] of V6) list(kind).addSubnet(net, prefix, 'ipv6');
  // Most specific first: "::1" is loopback before "::/96" is reserved.
  const order = ['loopback', 'unspecified', 'link-local', 'private', 'carrier-grade NAT', 'unique local', 'site-local', 'multicast', 'reserved'];
  return order.map((kind) => ({ kind, list: byKind.get(kind)! }));
})();

/** "loopback", "private", … for a non-public address; undefined for a public one (or not an IP address). */
export function addressKind(ip: string): string | undefined {
  const family = familyOf(ip);
  if (!family) return undefined;
  return KINDS.find((k) => k.list.check(ip, family))?.kind;
}

function familyOf(ip: string): Family | undefined {
  const v = isIP(ip);
  return v === 4 ? 'ipv4' : v === 6 ? 'ipv6' : undefined;
}

/** An IP literal as URL.hostname writes it ("[::1]") without the brackets. */
export function unbracket(host: string): string {
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}

/** A refused address: what it is, and whether any setting could allow it. */
export interface Refusal {
  host: string;
  ip: string;
  kind: string;
  /** Unspecified, multicast, reserved: never allowed. */
  never: boolean;
}

/** How a refusal is explained: who refuses, and how the worker would allow it. */
export interface GuardWording {
  /** After "…, a multicast address; ". */
  never: string;
  /** After "…, a loopback address; ". */
  refused: string;
}

const WEB_FETCH_WORDING: GuardWording = {
  never: 'web_fetch only fetches from unicast addresses',
  refused:
    'web_fetch refuses loopback, private and link-local addresses unless the worker allows them ' +
    "(HERMES_WEB_ALLOW_PRIVATE=1, or the host in HERMES_WEB_ALLOW_HOSTS / the config file's web.allowHosts)",
};

/** Decides per host name and resolved address; built once from the worker's config. */
export class AddressGuard {
  readonly #allowPrivate: boolean;
  readonly #names: string[] = [];
  readonly #suffixes: string[] = [];
  readonly #ranges = new BlockList();
  readonly #wording: GuardWording;

  constructor(policy: WebPolicy = {}, wording: GuardWording = WEB_FETCH_WORDING) {
    this.#wording = wording;
    this.#allowPrivate = policy.allowPrivate === true;
    for (const raw of policy.allowHosts ?? []) {
      const entry = parseAllowEntry(raw);
      if (!entry) throw new Error(`web allowHosts: ${JSON.stringify(raw)} is not a host name, *.domain, IP address or CIDR range`);
      if ('net' in entry) this.#ranges.addSubnet(entry.net, entry.prefix, entry.family);
      else if (entry.host.startsWith('*.')) this.#suffixes.push(entry.host.slice(1));
      else this.#names.push(entry.host);
    }
  }

  /** Why connecting to `ip` for `host` is refused, or undefined when it is allowed. */
  refusal(host: string, ip: string): string | undefined {
    const r = this.check(host, ip);
    return r && this.explain(r);
  }

  /** The refusal of connecting to `ip` for `host`, or undefined when it is allowed. */
  check(host: string, ip: string): Refusal | undefined {
    const kind = addressKind(ip);
    if (!kind) return undefined;
    if (NEVER.has(kind)) return { host, ip, kind, never: true };
    if (this.#allowPrivate || this.#hostAllowed(host) || this.#ranges.check(ip, familyOf(ip)!)) return undefined;
    return { host, ip, kind, never: false };
  }

  /** "127.0.0.1 is a loopback address; web_fetch refuses …"; `where` replaces the part before the semicolon. */
  explain(r: Refusal, where?: string): string {
    const what = where ?? (r.host === r.ip ? `${r.ip} is a ${r.kind} address` : `${r.host} resolves to ${r.ip}, a ${r.kind} address`);
    return `${what}; ${r.never ? this.#wording.never : this.#wording.refused}`;
  }

  /**
   * What can be told without DNS: an IP literal, or a `localhost` name (RFC 6761: always loopback). For a check
   * before anything is sent (a webhook at registration); the connection itself is checked by guardedLookup.
   */
  checkWithoutLookup(hostname: string): Refusal | undefined {
    const host = unbracket(hostname.toLowerCase()).replace(/\.$/, '');
    if (isIP(host)) return this.check(host, host);
    if (host === 'localhost' || host.endsWith('.localhost')) return this.check(host, '127.0.0.1');
    return undefined;
  }

  #hostAllowed(host: string): boolean {
    const h = unbracket(host.toLowerCase()).replace(/\.$/, '');
    return this.#names.includes(h) || this.#suffixes.some((s) => h.endsWith(s));
  }
}

/** An allow-list entry: a host name, "*.domain", an IP address or a CIDR range ("10.0.0.0/8", "[fd00::]/8"). */
export function validAllowEntry(raw: string): boolean {
  return parseAllowEntry(raw) !== undefined;
}

const HOST = /^(\*\.)?[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?(\.[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?)*$/;

function parseAllowEntry(raw: string): { net: string; prefix: number; family: Family } | { host: string } | undefined {
  const entry = raw.trim().toLowerCase();
  const slash = entry.indexOf('/');
  const addr = unbracket(slash < 0 ? entry : entry.slice(0, slash));
  const family = familyOf(addr);
  if (family) {
    const max = family === 'ipv4' ? 32 : 128;
    const bits = slash < 0 ? String(max) : entry.slice(slash + 1);
    return /^\d{1,3}$/.test(bits) && Number(bits) <= max ? { net: addr, prefix: Number(bits), family } : undefined;
  }
  const host = entry.replace(/\.$/, '');
  return slash < 0 && HOST.test(host) ? { host } : undefined;
}

/** Name resolution: every address of a host (tests map names to addresses). */
export type Resolve = (host: string) => Promise<Array<{ address: string; family: number }>>;

/**
 * A `lookup` for the socket that resolves, refuses unless every address is allowed, and hands those on: the
 * address checked is the address connected to, so a DNS answer that changes between a check and the connection
 * (rebinding) cannot slip through. `toError` makes the error the connection fails with (the refusal when an
 * address was refused). IP literals skip `lookup`: check them with `guard.check(ip, ip)` before connecting.
 */
export function guardedLookup(
  guard: AddressGuard,
  resolve: Resolve | undefined,
  toError: (message: string, refusal?: Refusal) => Error,
): LookupFunction {
  const resolveAll = resolve ?? ((host: string) => dnsLookup(host, { all: true, verbatim: true }));
  return (hostname, options, callback) => {
    resolveAll(hostname).then(
      (found) => {
        const family = options.family === 4 || options.family === 6 ? options.family : undefined;
        const addresses = found.filter((a) => !family || a.family === family);
        if (addresses.length === 0) return callback(toError(`${hostname} has no address`), '', 0);
        // All of them: a name that also points at a private address is refused, whichever the socket would pick.
        const refused = addresses.map((a) => guard.check(hostname, a.address)).find(Boolean);
        if (refused) return callback(toError(guard.explain(refused), refused), '', 0);
        if (options.all) return (callback as unknown as (e: null, a: typeof addresses) => void)(null, addresses);
        callback(null, addresses[0]!.address, addresses[0]!.family);
      },
      (err: NodeJS.ErrnoException) => callback(err, '', 0),
    );
  };
}
