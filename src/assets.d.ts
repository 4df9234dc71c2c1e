// File imports (`with { type: "file" }`) resolve to a path Bun can open, also inside a compiled binary.
declare module "*.js" {
  const path: string;
  export default path;
}
