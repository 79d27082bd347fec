/**
 * Entry of the kernel module (wasm/build/kernels.wasm, built by scripts/build-wasm.mjs).
 * ABI: offsets into the fixed input window in, counts and offsets out; pairs of
 * results go to RESULTS. The glue is src-main/engine/kernels/kernels.mjs.
 */
export { inputPtr, blockCountsPtr, resultsPtr, jsonStatePtr, needlePtr, hitsPtr, layoutEnd } from './layout';
export { countNewlinesPerBlock, countLinesAndCR, countNewlines, findNthNewline, countNewlineStyle } from './newlines';
export { sniff } from './sniff';
export { snapBackToCodepoint, snapForwardToCodepoint, lineStartBefore, lineEndAfter } from './boundaries';
export { utf8Scan } from './utf8';
export { countLinesAndCR16, countNewlines16, findNthNewline16, countNewlineStyle16, utf16Validate } from './utf16';
export { countChars, countLeads, findNthChar } from './chars';
export { jsonScan } from './json';
export { findLines } from './find';
