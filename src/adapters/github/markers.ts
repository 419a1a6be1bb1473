// The hidden markers crashprobe leaves in what it posts, so a later run finds
// its own comments again: a fingerprint per inline comment, one summary marker,
// one review marker. This is the only file that writes or reads them.
//
// A marker is trusted only where crashprobe put it: as the LAST line of a body
// it posted itself (the publisher checks the author). Any marker-like text in a
// body handed over for posting (a template's, or a pull request's text quoted in
// evidence) is removed first, so no body can carry a second, forged fingerprint.

const SUMMARY = '<!-- crashprobe:summary -->';
/** The fingerprint percent-encoded (encodeURIComponent), so no fingerprint can end the comment early. */
const FINGERPRINT_LINE = /^<!-- crashprobe:fp=([A-Za-z0-9._~!*'()%-]{1,400}) -->$/;
/** Any `<!-- crashprobe:… -->`, however spaced or cased, up to its end or the end of the text. */
const ANY_MARKER = /<!--\s*crashprobe\s*:[\s\S]*?(?:-->|$)/gi;

/** The text without any crashprobe marker in it. */
export function stripMarkers(text: string): string {
  return text.replace(ANY_MARKER, '');
}

function lastLine(body: string): string {
  const lines = body.trimEnd().split('\n');
  return (lines[lines.length - 1] ?? '').trim();
}

/** An inline comment's body as posted: the body without markers, then its fingerprint as the last line. */
export function withFingerprint(body: string, fingerprint: string): string {
  return `${stripMarkers(body).trimEnd()}\n<!-- crashprobe:fp=${encodeURIComponent(fingerprint)} -->\n`;
}

/** The fingerprint crashprobe wrote as the last line of a body, if any; a marker anywhere else is not one. */
export function fingerprintOf(body: string | undefined | null): string | undefined {
  const encoded = body ? FINGERPRINT_LINE.exec(lastLine(body))?.[1] : undefined;
  if (encoded === undefined) return undefined;
  try {
    return decodeURIComponent(encoded);
  } catch {
    return undefined;
  }
}

/** The sticky summary's body as posted: the text without markers, then the summary marker as the last line. */
export function withSummaryMarker(body: string): string {
  return `${stripMarkers(body).trimEnd()}\n${SUMMARY}\n`;
}

/** Room the summary marker takes, for callers that cut the text to GitHub's limit first. */
export const SUMMARY_MARKER_LENGTH = SUMMARY.length + 2;

export function isSummary(body: string | undefined | null): boolean {
  return Boolean(body) && lastLine(body!) === SUMMARY;
}

/** The review's body: one line for people, the head it was posted for as its marker. */
export function reviewBody(count: number, headSha: string): string {
  return `crashprobe: ${count} new finding(s) on ${headSha.slice(0, 7)}; the summary comment has the whole picture.\n<!-- crashprobe:review head=${headSha} -->`;
}
