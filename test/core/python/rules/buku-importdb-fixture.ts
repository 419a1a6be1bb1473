// buku 4.7's BukuDb.importdb with the helpers it calls (/usr/bin/buku 545-709, 2660-2667, parse_tags
// 3965-4022, shortened where nothing the rules read changes); each near miss swaps one part.
export interface BukuParts {
  dedup?: string;
  lookupReceiver?: string;
  guard?: string;
  keyArgument?: string;
  appendSql?: string;
  loop?: string;
  outputMode?: string;
  insertExtra?: string;
  mergeInput?: string;
  lookupAnswer?: string;
}


export function buku(parts: BukuParts = {}): string {
  const {
    dedup = 'sorted(set(orig_tags))',
    lookupReceiver = 'self.cur',
    guard = 'if id != -1:',
    keyArgument = 'url',
    appendSql = "'UPDATE bookmarks SET tags = ? WHERE id = ?'",
    outputMode = 'w',
    insertExtra = 'pass',
    mergeInput = 'row[1] + tags_in[1:]',
    lookupAnswer = 'resultset',
    loop = `
        for item in items:
            add_rec_res = self.add_rec(*item)
            if add_rec_res == -1 and append_tags_resp == 'y':
                rec_id = self.get_rec_id(item[0])
                self.append_tag_at_index(rec_id, item[2])`,
  } = parts;
  return `
import os
DELIM = ','

def delim_wrap(token):
    if token is None or token.strip() == '':
        return DELIM
    if token[0] != DELIM:
        token = DELIM + token
    if token[-1] != DELIM:
        token = token + DELIM
    return token

def parse_tags(keywords=[]):
    if keywords is None:
        return None
    if not keywords or len(keywords) < 1 or not keywords[0]:
        return DELIM
    tags = DELIM
    tagstr = ' '.join(keywords)
    marker = tagstr.find(DELIM)
    while marker >= 0:
        token = tagstr[0:marker]
        tagstr = tagstr[marker + 1:]
        marker = tagstr.find(DELIM)
        token = token.strip()
        if token == '':
            continue
        tags += token + DELIM
    if tags == DELIM:
        return tags
    orig_tags = tags.lower().strip(DELIM).split(DELIM)
    unique_tags = ${dedup}
    return delim_wrap(DELIM.join(unique_tags))

def write_string_to_file(content, filepath):
    try:
        with open(filepath, '${outputMode}', encoding='utf-8') as f:
            f.write(content)
    except Exception as e:
        print(e)

def import_md(filepath, newtag):
    with open(filepath, mode='r', encoding='utf-8') as infp:
        for line in infp:
            url = line.strip()
            yield (url, '', newtag, None, 0, True, False)

class BukuDb:
    def get_rec_id(self, url):
        ${lookupReceiver}.execute('SELECT id FROM bookmarks WHERE URL = ? LIMIT 1', (url,))
        resultset = ${lookupReceiver}.fetchall()
        return resultset[0][0] if ${lookupAnswer} else -1

    def print_rec(self, index=0):
        self.cur.execute('SELECT * FROM bookmarks WHERE id = ?', (index,))
        results = self.cur.fetchall()
        if self.json:
            write_string_to_file(str(results), self.json)
        else:
            print(results)

    def add_rec(self, url, title_in=None, tags_in=None, desc=None, immutable=0, delay_commit=False, fetch=True, skip_existing=True):
        if not url or url == '':
            return -1
        id = self.get_rec_id(${keyArgument})
        ${guard}
            print('URL [%s] already exists at index %d' % (url, id))
            return -1
        tags_in = delim_wrap(tags_in)
        try:
            qry = 'INSERT INTO bookmarks(URL, metadata, tags, desc, flags) VALUES (?, ?, ?, ?, ?)'
            self.cur.execute(qry, (url, title_in, tags_in, desc, immutable))
            ${insertExtra}
            if not delay_commit:
                self.conn.commit()
            if self.chatty:
                self.print_rec(self.cur.lastrowid)
            return self.cur.lastrowid
        except Exception as e:
            print(e)
            return -1

    def append_tag_at_index(self, index, tags_in, delay_commit=False):
        if tags_in is None or tags_in == DELIM:
            return True
        if index == 0:
            self.cur.execute('SELECT id, tags FROM bookmarks ORDER BY id ASC')
        else:
            self.cur.execute('SELECT id, tags FROM bookmarks WHERE id = ? LIMIT 1', (index,))
        resultset = self.cur.fetchall()
        if resultset:
            query = ${appendSql}
            for row in resultset:
                tags = ${mergeInput}
                tags = parse_tags([tags])
                self.cur.execute(query, (tags, row[0],))
        else:
            return False
        if not delay_commit:
            self.conn.commit()
        return True

    def importdb(self, filepath, newtag, append_tags_resp):
        items = import_md(filepath, newtag)${loop}
        self.conn.commit()
        return True
`;
}

