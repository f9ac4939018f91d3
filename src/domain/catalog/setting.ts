/**
 * The catalog a simulator answers with (issue 27): each wire's built-in catalog, or the
 * one a catalog document makes of it. Part of the state: snapshots, the state file and
 * `reset` carry the document.
 */
import type { Wire } from '../../core/wire.js';
import { builtinCatalog, builtinCatalogDocument } from './builtin.js';
import { checkCatalogOnWire } from './check.js';
import { Catalog } from './data.js';
import { catalogTables, mergeCatalog, type CatalogDocument } from './document.js';

/**
 * The catalog a sound document makes of `wire`'s.
 * @example catalogOf({ merge: 'extend', voices: [...] }, 'live').voice(9001)
 */
export function catalogOf(doc: CatalogDocument, wire: Wire): Catalog {
  return new Catalog(catalogTables(mergeCatalog(builtinCatalogDocument(wire), doc)));
}

/**
 * The catalog document in force (none: each wire's own catalog), the wire it was checked
 * against, and the catalog it makes under each wire, built on first use.
 * @example const setting = new CatalogSetting(null, 'spec'); setting.of('live').voice(1994)?.name // 'Christian Plasa'
 */
export class CatalogSetting {
  private doc: CatalogDocument | null;
  private checkedOn: Wire;
  private readonly built = new Map<Wire, Catalog>();
  /** Moves with every change (the state file writes the document when it moved). */
  revision = 0;

  /** `doc` was checked against `wire`'s catalog. */
  constructor(doc: CatalogDocument | null, wire: Wire) {
    this.doc = doc === null ? null : structuredClone(doc);
    this.checkedOn = wire;
  }

  /** The document in force, as given (validated), or null for the wire's own catalog. */
  get document(): CatalogDocument | null {
    return this.doc === null ? null : structuredClone(this.doc);
  }

  /**
   * The catalog of a wire: its built-in one, or what the document makes of it. On another
   * wire than the document was checked against (a request answered in another wire, msw's
   * `handlers(sim, { wire })`), the document is checked there first and refused (422 shape B
   * on `wire`) rather than served with references that do not resolve (docs/catalog.md
   * "One document, two wires").
   */
  of(wire: Wire): Catalog {
    if (this.doc === null) return builtinCatalog(wire);
    let catalog = this.built.get(wire);
    if (!catalog) {
      if (wire !== this.checkedOn) checkCatalogOnWire(this.doc, wire);
      catalog = catalogOf(this.doc, wire);
      this.built.set(wire, catalog);
    }
    return catalog;
  }

  /**
   * Puts a document in force, or none; `doc` was checked against `wire`'s catalog, and
   * `catalog` is the one it makes there when the caller built it already (setCatalog).
   */
  set(doc: CatalogDocument | null, wire: Wire, catalog?: Catalog): void {
    this.doc = doc === null ? null : structuredClone(doc);
    this.checkedOn = wire;
    this.built.clear();
    if (catalog) this.built.set(wire, catalog);
    this.revision++;
  }
}
