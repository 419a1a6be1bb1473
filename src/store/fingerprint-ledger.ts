// The fingerprints crashprobe posted on pull requests, kept outside GitHub. The store keeps them
// (state.ts) and the GitHub publisher reads them; the type lives here so the store imports no adapter.
export interface FingerprintLedger {
  posted(repository: string, number: number): Set<string>;
  record(repository: string, number: number, headSha: string, fingerprints: readonly string[]): void;
}
