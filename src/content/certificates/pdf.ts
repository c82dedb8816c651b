import fontkit from "@pdf-lib/fontkit";
import { PDFDocument, rgb } from "pdf-lib";
// DejaVu Sans (free licence, docs/decisions/certificates.md, "The PDF"): Latin and Cyrillic,
// Kazakh letters included; bundled as bytes by the Data module rule of wrangler.toml.
import DEJAVU_SANS from "dejavu-fonts-ttf/ttf/DejaVuSans.ttf";
import { iso } from "../../core/lib/clock";

export interface PdfContent {
  title: string;
  holderName: string;
  courseTitle: string;
  schoolName: string;
  issuedAt: number;
  code: string;
  verifyUrl: string;
}

/** A4 landscape in points. */
const WIDTH = 841.89;
const HEIGHT = 595.28;

/**
 * The certificate as an A4 landscape PDF with the font embedded (subset to the glyphs used, with
 * its ToUnicode map, so the text can be searched and extracted). Dates in the file are the
 * issuance's, so rendering twice gives the same document.
 */
export async function renderCertificatePdf(content: PdfContent): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  doc.registerFontkit(fontkit);
  const font = await doc.embedFont(new Uint8Array(DEJAVU_SANS), { subset: true });
  const issued = new Date(content.issuedAt);
  doc.setTitle(`${content.title} — ${content.holderName}`);
  doc.setCreator(content.schoolName);
  doc.setProducer("lms-edge-api");
  doc.setCreationDate(issued);
  doc.setModificationDate(issued);
  const page = doc.addPage([WIDTH, HEIGHT]);
  const ink = rgb(0.12, 0.15, 0.2);
  const muted = rgb(0.4, 0.43, 0.48);
  page.drawRectangle({ x: 24, y: 24, width: WIDTH - 48, height: HEIGHT - 48, borderColor: rgb(0.7, 0.6, 0.3), borderWidth: 3 });

  /** A line centred on the page, shrunk until it fits the width. */
  const centred = (text: string, y: number, size: number, color = ink) => {
    let fontSize = size;
    while (fontSize > 8 && font.widthOfTextAtSize(text, fontSize) > WIDTH - 120) fontSize -= 1;
    page.drawText(text, { x: (WIDTH - font.widthOfTextAtSize(text, fontSize)) / 2, y, size: fontSize, font, color });
  };
  centred(content.schoolName, HEIGHT - 100, 20, muted);
  centred(content.title, HEIGHT - 170, 34);
  centred("Сертификат / Certificate", HEIGHT - 215, 14, muted);
  centred(content.holderName, HEIGHT - 285, 30);
  centred("прошёл(а) курс / has completed the course", HEIGHT - 325, 14, muted);
  centred(content.courseTitle, HEIGHT - 370, 22);
  centred(`Дата / Date: ${iso(content.issuedAt).slice(0, 10)}`, 150, 13, muted);
  centred(`Код / Code: ${content.code}`, 125, 13, muted);
  centred(content.verifyUrl, 100, 11, muted);
  return doc.save({ useObjectStreams: false });
}
