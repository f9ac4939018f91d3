/**
 * The catalog a simulator answers with (issue 27): each wire's built-in catalog, or the
 * one a catalog document makes of it. Part of the state: snapshots, the state file and
 * `reset` carry the document.
 */
import type { Wire } from '../../core/wire.js';
import { builtinCatalog, builtinCatalogDocument } from './builtin.js';
import { Catalog } from './data.js';
import { catalogTables, mergeCatalog, type CatalogDocument } from './document.js';

/**
 * The catalog document in force (none: each wire's own catalog) and the catalog it makes
 * under each wire, built on first use.
 * @example const setting = new CatalogSetting(null); setting.of('live').voice(1994)?.name // 'Christian Plasa'
 */
export class CatalogSetting {
  private doc: CatalogDocument | null;
  private readonly built = new Map<Wire, Catalog>();
  /** Moves with every change (the state file writes the document when it moved). */
  revision = 0;

  constructor(doc: CatalogDocument | null) {
    this.doc = doc === null ? null : structuredClone(doc);
  }

  /** The document in force, as given (validated), or null for the wire's own catalog. */
  get document(): CatalogDocument | null {
    return this.doc === null ? null : structuredClone(this.doc);
  }

  /** The catalog of a wire: its built-in one, or what the document makes of it. */
  of(wire: Wire): Catalog {
    if (this.doc === null) return builtinCatalog(wire);
    let catalog = this.built.get(wire);
    if (!catalog) {
      catalog = new Catalog(catalogTables(mergeCatalog(builtinCatalogDocument(wire), this.doc)));
      this.built.set(wire, catalog);
    }
    return catalog;
  }

  /** Puts a (validated) document in force, or none. */
  set(doc: CatalogDocument | null): void {
    this.doc = doc === null ? null : structuredClone(doc);
    this.built.clear();
    this.revision++;
  }
}
