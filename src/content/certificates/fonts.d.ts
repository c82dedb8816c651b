/** A font file bundled as bytes (the Data module rule for *.ttf in wrangler.toml). */
declare module "*.ttf" {
  const bytes: ArrayBuffer;
  export default bytes;
}
