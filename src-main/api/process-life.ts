/** The doors' word on how long the process lives (engine/process-life.ts). */
export { preferQuickStart } from '../engine/process-life.ts';
