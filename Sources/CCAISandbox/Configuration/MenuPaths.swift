import Foundation

extension SandboxConfiguration {
    /// The menus from a root of the tree down to menu `id` (it last); nil when no menu has
    /// that id.
    func menuPath(to id: Int) -> [MenuConfiguration]? {
        func search(_ menus: [MenuConfiguration], _ above: [MenuConfiguration]) -> [MenuConfiguration]? {
            for menu in menus {
                if menu.id == id { return above + [menu] }
                if let found = search(menu.children ?? [], above + [menu]) { return found }
            }
            return nil
        }
        return search(menus ?? [], [])
    }

    /// Menu `id`'s names from the root down in `language` (else the company's first),
    /// joined by `/` (our choice: the platform's pages show only a one-level
    /// `materialized_path`); nil for an unknown menu.
    func materializedPath(to id: Int, language: String) -> String? {
        let fallback = company.languages.first ?? "en"
        return menuPath(to: id)?.map { $0.name.text(language, fallback: fallback) ?? String($0.id) }.joined(separator: "/")
    }
}
