/** Types of unbzip2-stream (it ships none): a classic `through` stream that emits decompressed Buffers as it is written. */
declare module 'unbzip2-stream' {
  import type { Stream } from 'node:stream';
  export interface Through extends Stream {
    write(chunk: Buffer): boolean;
    end(): void;
  }
  export default function unbzip2Stream(): Through;
}
