/** Vite serves a file imported with `?inline` as a base64 `data:` URL (how binary fixtures reach workerd). */
declare module "*?inline" {
  const dataUrl: string;
  export default dataUrl;
}
