// What web_fetch does with a response body: HTML becomes readable text (html-to-text), other text is returned
// as it is, binary content is refused. Decoding honours the charset of the Content-Type or of a <meta> tag.
import type { compiledFunction } from 'html-to-text';
import { isBinary } from '../handler-helpers/fs-util';

export type ContentKind = 'html' | 'text' | 'binary' | 'unknown';

const TEXT_APPLICATION =
  /^application\/(json|xml|javascript|ecmascript|x-javascript|x-ndjson|x-yaml|yaml|toml|x-toml|sql|graphql|csv|x-sh|x-httpd-php|x-www-form-urlencoded|rtf)$/;

export function mimeOf(contentType: string | undefined): string {
  return (contentType ?? '').split(';')[0]!.trim().toLowerCase();
}

/** From the Content-Type alone; `unknown` (no type) is decided by sniffing the bytes. */
export function contentKind(contentType: string | undefined): ContentKind {
  const mime = mimeOf(contentType);
  if (!mime) return 'unknown';
  if (mime === 'text/html' || mime === 'application/xhtml+xml') return 'html';
  if (mime.startsWith('text/') || TEXT_APPLICATION.test(mime) || /\+(json|xml)$/.test(mime)) return 'text';
  return 'binary';
}

/** The body as text, or undefined when it is binary after all (a NUL byte, like git and grep decide). */
export function bodyText(buf: Buffer, kind: ContentKind, contentType: string | undefined, url: string): { text: string; html: boolean } | undefined {
  if (isBinary(buf)) return undefined;
  const head = buf.subarray(0, 2048).toString('latin1');
  const html = kind === 'html' || (kind === 'unknown' && /^\s*(<!doctype html|<html|<head|<body)/i.test(head));
  const charset =
    /charset\s*=\s*"?([\w.:-]+)/i.exec(contentType ?? '')?.[1] ?? (html ? /<meta[^>]+charset\s*=\s*["']?([\w.:-]+)/i.exec(head)?.[1] : undefined);
  const text = decode(buf, charset);
  return { text: html ? htmlToText(text, url) : text, html };
}

function decode(buf: Buffer, charset: string | undefined): string {
  try {
    return new TextDecoder(charset ?? 'utf-8').decode(buf);
  } catch {
    return new TextDecoder('utf-8').decode(buf); // an unknown label: UTF-8 is the web's default
  }
}

/** <title>, whitespace collapsed (html-to-text reads the body only). */
export function htmlTitle(html: string): string | undefined {
  // [^<>]: with [^>], each of many unclosed "<title" was scanned to the end (quadratic).
  const m = /<title[^<>]*>([^<]*)<\/title>/i.exec(html.slice(0, 65_536));
  const t = m?.[1]?.replace(/\s+/g, ' ').trim();
  return t ? decodeEntities(t) : undefined;
}

function decodeEntities(s: string): string {
  const named: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };
  return s.replace(/&(#x[0-9a-f]+|#\d+|\w+);/gi, (all, e: string) => {
    if (e[0] === '#') return String.fromCodePoint(e[1] === 'x' || e[1] === 'X' ? parseInt(e.slice(2), 16) : Number(e.slice(1)));
    return named[e.toLowerCase()] ?? all;
  });
}

let converter: compiledFunction | undefined;

/**
 * Readable text: no wrapping (the model reads it, not a terminal), headings keep their case, links become
 * "text [absolute url]" so the model can fetch them next, images and scripts are dropped, tables stay tables.
 */
function htmlToText(html: string, url: string): string {
  // Loaded at the first HTML page, not with every worker (its parser is ~80 ms of a start).
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- see above
  converter ??= (require('html-to-text') as typeof import('html-to-text')).compile({
    wordwrap: false,
    selectors: [
      {
        selector: 'a',
        options: { hideLinkHrefIfSameAsText: true, noAnchorUrl: true, pathRewrite: (p: string, meta: { base: string }) => absolute(p, meta.base) },
      },
      { selector: 'img', format: 'skip' },
      ...['h1', 'h2', 'h3', 'h4', 'h5', 'h6'].map((selector) => ({ selector, options: { uppercase: false } })),
      { selector: 'table', format: 'dataTable', options: { uppercaseHeaderCells: false } },
    ],
  });
  const body = (converter as (html: string, meta?: unknown) => string)(html, { base: url });
  return body.replace(/\n{3,}/g, '\n\n').trim();
}

function absolute(href: string, base: string): string {
  try {
    return new URL(href, base).href;
  } catch {
    return href;
  }
}
