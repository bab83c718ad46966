import { describe, expect, it } from "vitest";
import {
  type BatchFileLimits,
  type BatchFileResult,
  MAX_BLANK_RECORDS,
  readBatchFile,
} from "../../../../src/payouts/batch/file.js";

const utf8 = (text: string): Uint8Array => new TextEncoder().encode(text);

function read(text: string, limits?: BatchFileLimits): Promise<BatchFileResult> {
  return readBatchFile(utf8(text), limits);
}

async function rowsOf(pending: Promise<BatchFileResult>) {
  const result = await pending;
  if (!result.ok) throw new Error(`expected rows, got ${JSON.stringify(result.problem)}`);
  return result.rows;
}

describe("readBatchFile", async () => {
  describe("reads", async () => {
    it("a recipient (bénéficiaire) column in place of a phone column, and as the name beside one", async () => {
      expect(await rowsOf(read("recipient,amount,name\njean,5000,Jean\n670000001,250,\n"))).toEqual(
        [
          { row: 2, phone: "jean", amount: "5000", name: "Jean" },
          { row: 3, phone: "670000001", amount: "250" },
        ],
      );
      expect(await rowsOf(read("Bénéficiaire;Montant\naïcha;1 000\n"))).toEqual([
        { row: 2, phone: "aïcha", amount: "1 000" },
      ]);
      expect(await rowsOf(read("phone,amount,recipient\n670000001,5000,Jean\n"))).toEqual([
        { row: 2, phone: "670000001", amount: "5000", name: "Jean" },
      ]);
    });

    it("a comma-separated file with English headers", async () => {
      const result = await read(
        "phone,amount,note,name\n237677123456,5000,May bonus,Awa\n237699000111,250,,\n",
      );
      expect(result).toEqual({
        ok: true,
        delimiter: ",",
        rows: [
          { row: 2, phone: "237677123456", amount: "5000", note: "May bonus", name: "Awa" },
          { row: 3, phone: "237699000111", amount: "250" },
        ],
      });
    });

    it("an Excel French export: BOM, CRLF, semicolons, accented headers, spaced amounts", async () => {
      const result = await read(
        "\uFEFFTéléphone;Montant;Motif;Nom\r\n677 12 34 56;1 000;Prime;Ngo Bassa\r\n" +
          "699000111;1 000,50;Avance, juin;Éric\r\n",
      );
      expect(result).toEqual({
        ok: true,
        delimiter: ";",
        rows: [
          { row: 2, phone: "677 12 34 56", amount: "1 000", note: "Prime", name: "Ngo Bassa" },
          { row: 3, phone: "699000111", amount: "1 000,50", note: "Avance, juin", name: "Éric" },
        ],
      });
    });

    it("quoted cells holding separators, doubled quotes and a line break", async () => {
      const rows = await rowsOf(
        read(
          "phone,amount,note,name\n" +
            '677000001,100,"Line one\nline two","Doe, John"\n' +
            '677000002,200,"He said ""thanks""",x\n',
        ),
      );
      expect(rows).toEqual([
        {
          row: 2,
          phone: "677000001",
          amount: "100",
          note: "Line one\nline two",
          name: "Doe, John",
        },
        { row: 3, phone: "677000002", amount: "200", note: 'He said "thanks"', name: "x" },
      ]);
    });

    it("columns in any order, ignoring unknown ones, with header spelling variants", async () => {
      const rows = await rowsOf(read("ID,Montant,Phone_Number,Branch\n7, 300 ,677000001,Douala\n"));
      expect(rows).toEqual([{ row: 2, phone: "677000001", amount: "300" }]);
    });

    it("skips blank lines and all-empty lines but keeps counting them as rows", async () => {
      const rows = await rowsOf(read("phone;amount\n\n677000001;100\n;;;\n   \n677000002;200\n"));
      expect(rows.map(({ row, phone }) => [row, phone])).toEqual([
        [3, "677000001"],
        [6, "677000002"],
      ]);
    });

    it("returns an empty phone or amount as an empty string for the row check to report", async () => {
      const rows = await rowsOf(read("phone,amount\n,100\n677000001,\n"));
      expect(rows).toEqual([
        { row: 2, phone: "", amount: "100" },
        { row: 3, phone: "677000001", amount: "" },
      ]);
    });

    it("accepts rows shorter than the header and empty cells past its end", async () => {
      const rows = await rowsOf(read("phone;amount;note\n677000001;100\n677000002;200;;;\n"));
      expect(rows).toEqual([
        { row: 2, phone: "677000001", amount: "100" },
        { row: 3, phone: "677000002", amount: "200" },
      ]);
    });

    it("breaks a delimiter tie in favour of the comma", async () => {
      const result = await read("phone,amount,a;b;c\n677000001,100,x;y;z\n");
      expect(result).toEqual({
        ok: true,
        delimiter: ",",
        rows: [{ row: 2, phone: "677000001", amount: "100" }],
      });
    });
  });

  describe("reports", async () => {
    it("no bytes as empty", async () => {
      expect(await readBatchFile(new Uint8Array())).toEqual({
        ok: false,
        problem: { kind: "empty" },
      });
    });

    it("a BOM and whitespace only as empty", async () => {
      expect(await read("\uFEFF \r\n\n")).toEqual({ ok: false, problem: { kind: "empty" } });
    });

    it("a header without data rows as empty", async () => {
      expect(await read("phone;amount\r\n;;\r\n")).toEqual({
        ok: false,
        problem: { kind: "empty" },
      });
    });

    it("a file over the byte limit as too big, before reading it", async () => {
      const bytes = new Uint8Array([...utf8("phone,amount\n"), 0xff, 0xfe]);
      const result = await readBatchFile(bytes, { maxRows: 10, maxBytes: 10 });
      expect(result).toEqual({ ok: false, problem: { kind: "too_big", maxBytes: 10 } });
    });

    it("more data rows than allowed, not counting blank lines", async () => {
      const text = "phone,amount\n1,1\n\n2,2\n3,3\n";
      expect((await read(text, { maxRows: 3, maxBytes: 1000 })).ok).toBe(true);
      expect(await read(`${text}4,4\n`, { maxRows: 3, maxBytes: 1000 })).toEqual({
        ok: false,
        problem: { kind: "too_many_rows", maxRows: 3 },
      });
    });

    it("invalid UTF-8 with the row of the first bad byte", async () => {
      const bytes = new Uint8Array([
        ...utf8("phone;amount;nom\n677000001;100;Awa\n677000002;200;"),
        0xe9, // "é" in Windows-1252
        ...utf8("ric\n677000003;300;Ok\n"),
      ]);
      expect(await readBatchFile(bytes)).toEqual({
        ok: false,
        problem: { kind: "bad_encoding", row: 3 },
      });
    });

    it("invalid UTF-8 after a multi-line cell with its spreadsheet row", async () => {
      const bytes = new Uint8Array([
        ...utf8('phone,amount,note\n677000001,100,"a\nb\nc"\n677000002,200,'),
        0xff,
        ...utf8("\n"),
      ]);
      expect(await readBatchFile(bytes)).toEqual({
        ok: false,
        problem: { kind: "bad_encoding", row: 3 },
      });
    });

    it("a file with a NUL byte as not CSV, with its row", async () => {
      const bytes = new Uint8Array([...utf8("phone,amount\n677000001,100\n"), 0x00, 0x01]);
      expect(await readBatchFile(bytes)).toEqual({
        ok: false,
        problem: { kind: "not_csv", row: 3, detail: "binary content (NUL byte)" },
      });
    });

    it("an .xlsx upload (zip bytes) as not CSV rather than a bad encoding", async () => {
      const zipStart = [0x50, 0x4b, 0x03, 0x04, 0x14, 0x00, 0x06, 0x00, 0xff, 0xfe];
      const result = await readBatchFile(new Uint8Array(zipStart));
      expect(result.ok || result.problem.kind).toBe("not_csv");
    });

    it("an unclosed quote as not CSV, at the row where the quote opens", async () => {
      const result = await read(
        'phone,amount,note\n677000001,100,ok\n\n677000002,200,"oops\n677000003,1\n',
      );
      expect(result).toEqual({
        ok: false,
        problem: { kind: "not_csv", row: 4, detail: "Quote Not Closed" },
      });
    });

    it("a missing amount column, listing the headers found", async () => {
      expect(await read("Téléphone;Somme;Nom\n677000001;100;Awa\n")).toEqual({
        ok: false,
        problem: { kind: "missing_column", column: "amount", found: ["Téléphone", "Somme", "Nom"] },
      });
    });

    it("a missing phone column before a missing amount column", async () => {
      const result = await read("who,what\nx,y\n");
      expect(result).toEqual({
        ok: false,
        problem: { kind: "missing_column", column: "phone", found: ["who", "what"] },
      });
    });

    it("a row with more cells than the header, with its row and cell count", async () => {
      const result = await read("phone,amount,name\n677000001,100,Awa\n677000002,100,Doe,x\n");
      expect(result).toEqual({
        ok: false,
        problem: { kind: "extra_cells", row: 3, cells: 4, headerCells: 3 },
      });
    });

    it("an unquoted 5,000 in a comma-separated file as a split amount, not 5", async () => {
      expect(await read("phone,amount,note\n677000001,5,000\n")).toEqual({
        ok: false,
        problem: { kind: "split_amount", row: 2, amount: "5,000" },
      });
      expect(await read("phone,amount\n677000001,1,000,000\n")).toEqual({
        ok: false,
        problem: { kind: "split_amount", row: 2, amount: "1,000,000" },
      });
      // Quoted, or with `;` as the separator, it is one cell.
      expect(await rowsOf(read('phone,amount,note\n677000001,"5,000",x\n'))).toEqual([
        { row: 2, phone: "677000001", amount: "5,000", note: "x" },
      ]);
      expect(await rowsOf(read("phone;amount;note\n677000001;5;000\n"))).toEqual([
        { row: 2, phone: "677000001", amount: "5", note: "000" },
      ]);
    });

    it("stops at the first row over the cap, whatever follows", async () => {
      const text = `phone,amount\n${"1,1\n".repeat(5)}"unclosed\n`;
      expect(await read(text, { maxRows: 3, maxBytes: 1000 })).toEqual({
        ok: false,
        problem: { kind: "too_many_rows", maxRows: 3 },
      });
    });

    it("at most MAX_BLANK_RECORDS records of empty cells, stopping there", async () => {
      const blank = ";;;\n".repeat(MAX_BLANK_RECORDS);
      expect(await rowsOf(read(`phone;amount\n${blank}677000001;100\n`))).toHaveLength(1);
      expect(await read(`phone;amount\n${blank};\n677000001;100\n`)).toEqual({
        ok: false,
        problem: { kind: "too_many_blank_rows", maxBlankRows: MAX_BLANK_RECORDS },
      });
    });

    it("counts a megabyte of blank lines in the rows of what follows", async () => {
      const text = `phone,amount\n${"\n".repeat(500_000)}677000001,100\n`;
      expect(await rowsOf(read(text))).toEqual([
        { row: 500_002, phone: "677000001", amount: "100" },
      ]);
    });

    it("any bytes as a result, never an exception", async () => {
      const alphabet = [0x22, 0x2c, 0x3b, 0x0a, 0x0d, 0x20, 0x61, 0x31, 0xc3, 0xa9, 0xff, 0x00];
      const kinds = [
        "empty",
        "bad_encoding",
        "not_csv",
        "missing_column",
        "too_many_blank_rows",
        "extra_cells",
        "split_amount",
      ];
      let seed = 42;
      const next = (): number => {
        seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
        return seed;
      };
      for (let run = 0; run < 300; run++) {
        const header = run % 2 === 0 ? utf8("phone,amount\n") : new Uint8Array();
        const noise = Array.from(
          { length: next() % 40 },
          () => alphabet[next() % alphabet.length] ?? 0,
        );
        const result = await readBatchFile(new Uint8Array([...header, ...noise]));
        if (result.ok) {
          const rows = result.rows.map(({ row }) => row);
          expect(rows).toEqual([...rows].sort((a, b) => a - b));
          expect(rows.every((row) => row >= 2)).toBe(true);
        } else {
          expect(kinds).toContain(result.problem.kind);
        }
      }
    });
  });
});
