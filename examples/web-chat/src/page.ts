/** The page: a mount point and the bundled script. */
export const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>yourtool web chat</title>
<style>
  body { font: 15px/1.45 system-ui, sans-serif; margin: 0; background: #f6f6f4; color: #222; }
  main { max-width: 760px; margin: 0 auto; padding: 16px; }
  header { display: flex; gap: 12px; align-items: center; flex-wrap: wrap; }
  .msg { background: #fff; border-radius: 8px; padding: 8px 12px; margin: 8px 0; white-space: pre-wrap; }
  .user { background: #e6f0ff; }
  .tool { font: 13px ui-monospace, monospace; background: #f0f0f0; padding: 6px; border-radius: 6px; margin: 4px 0; }
  .reasoning { color: #777; font-style: italic; }
  form { display: flex; gap: 8px; }
  input[name=text] { flex: 1; padding: 8px; }
  .error { color: #a00; }
</style>
</head>
<body><main id="root">Loading…</main><script type="module" src="/app.js"></script></body>
</html>
`;
