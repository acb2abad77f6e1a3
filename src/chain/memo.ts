/**
 * The memo a prediction transaction carries: a versioned JSON record, signed by the user
 * (the Memo program checks every listed signer signed), so the chain itself holds what was
 * predicted and in which revision. Values are decimal strings: never floating point.
 */
export type PredictionMemo =
  | { v: 1; op: 'predict'; pool: string; value: string; stake: string; rev: 1 }
  | { v: 1; op: 'stake'; pool: string; prediction: string; stake: string; rev: number }
  | { v: 1; op: 'value'; pool: string; prediction: string; value: string; rev: number }
  | { v: 1; op: 'withdraw'; amount: string; to: string }
  | { v: 1; op: 'claim'; kind: 'reward' | 'refund' | 'streak'; id: string; amount: string };

/** The memo's bytes: compact JSON with the keys in a fixed order, so equal records are equal bytes. */
export function encodeMemo(memo: PredictionMemo): Buffer {
  return Buffer.from(JSON.stringify(memo), 'utf8');
}

export function decodeMemo(data: Uint8Array): PredictionMemo | null {
  try {
    const parsed = JSON.parse(Buffer.from(data).toString('utf8')) as PredictionMemo;
    return parsed && parsed.v === 1 && typeof parsed.op === 'string' ? parsed : null;
  } catch {
    return null;
  }
}
