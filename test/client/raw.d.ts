/** Vite's `?raw` imports: a file's text as a string (the test pool runs files through Vite). */
declare module "*?raw" {
  const text: string;
  export default text;
}
