import { FORUM_POST, MICROBLOG_POST, htmlToText } from '../../src/domain/ceremonies/methods/proof-post.js';

const LINE = 'rss-proof: AGR-ABCD-EFGH v1 3f1c2d7e-0000-4000-8000-000000000001 Zx9Yw8Vu7Ts6';

function showsLine(text: string): boolean {
  return text.split(/\r\n|\r|\n/).map((line) => line.trim()).includes(LINE);
}

describe('Proof posts: only the text a reader sees counts', () => {
  it.each([
    ['a plain paragraph', `<p>I sign.</p><p>${LINE}</p>`, true],
    ['a line after <br>', `<p>I sign.<br>${LINE}</p>`, true],
    ['entities decoded', `<p>I sign &amp; agree.</p><p>${LINE.replace(':', '&#58;')}</p>`, true],
    ['a <script>', `<p>I sign.</p><script>\n${LINE}\n</script>`, false],
    ['a <style>', `<p>I sign.</p><style>\n${LINE}\n</style>`, false],
    ['a <template>', `<p>I sign.</p><template><p>${LINE}</p></template>`, false],
    ['a <noscript>', `<p>I sign.</p><noscript><p>${LINE}</p></noscript>`, false],
    ['an HTML comment', `<p>I sign.</p><!--\n${LINE}\n-->`, false],
    ['a hidden element', `<p>I sign.</p><p hidden>${LINE}</p>`, false],
    ['display:none', `<p>I sign.</p><p style="color: red; display : none">${LINE}</p>`, false],
    ['visibility:hidden', `<p>I sign.</p><div style="visibility:hidden"><p>${LINE}</p></div>`, false],
    ['aria-hidden', `<p>I sign.</p><span aria-hidden="true"><p>${LINE}</p></span>`, false],
    ['a child of a hidden element', `<div hidden><section><p>${LINE}</p></section></div>`, false],
  ])('microblog HTML, proof line in %s: counts = %s', (_name, html, visible) => {
    const post = MICROBLOG_POST.parse({ account: { acct: 'alice' }, content: html });
    expect(showsLine(post!.text)).toBe(visible);
    expect(showsLine(htmlToText(html))).toBe(visible);
  });

  it.each([
    ['markdown text', `I sign.\n\n${LINE}\n`, true],
    ['an HTML comment in the markdown', `I sign.\n<!--\n${LINE}\n-->\n`, false],
    ['a hidden element in the markdown', `I sign.\n<div style="display:none">\n${LINE}\n</div>\n`, false],
  ])('forum raw post, proof line in %s: counts = %s', (_name, raw, visible) => {
    const post = FORUM_POST.parse({ username: 'alice', raw });
    expect(showsLine(post!.text)).toBe(visible);
  });
});
