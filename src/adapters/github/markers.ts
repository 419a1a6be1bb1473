// The hidden markers crashprobe leaves in what it posts, so a later run finds
// its own comments again: a fingerprint per inline comment, one summary marker.
export const SUMMARY_MARKER = '<!-- crashprobe:summary -->';

const FINGERPRINT = /<!-- crashprobe:fp=(\S+?) -->/;

export function fingerprintMarker(fingerprint: string): string {
  return `<!-- crashprobe:fp=${fingerprint} -->`;
}

export function fingerprintOf(body: string | undefined | null): string | undefined {
  return body ? FINGERPRINT.exec(body)?.[1] : undefined;
}

/** The body with its fingerprint marker, added when the renderer left it out. */
export function withFingerprint(body: string, fingerprint: string): string {
  return fingerprintOf(body) === fingerprint ? body : `${body.trimEnd()}\n${fingerprintMarker(fingerprint)}`;
}

export function isSummary(body: string | undefined | null): boolean {
  return Boolean(body?.includes(SUMMARY_MARKER));
}
