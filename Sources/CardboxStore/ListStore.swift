import CardboxCore
import CardboxSync
import Foundation
import GRDB

/// Changes to an item; nil leaves a field as it is. `quantity: .some(nil)` clears the quantity.
public struct ItemChanges: Sendable, Equatable {
    public var title: String?
    public var description: String?
    public var quantity: Int32??

    public init(title: String? = nil, description: String? = nil, quantity: Int32?? = nil) {
        self.title = title
        self.description = description
        self.quantity = quantity
    }
}

extension CardboxStore {
    // MARK: Lists

    /// Creates a list at the end of the user's lists (or at `position`, 0-based).
    public func createList(name: String, position: Int? = nil) throws -> ItemList {
        let name = try ItemList.validateName(name)
        return try write { tx in
            let id = tx.newID()
            let key = try tx.position(.itemList, parentId: nil, at: position)
            try tx.insert(
                .itemList, id: id,
                [
                    (.name, name), (.position, key), (.isArchived, 0), (.createdAt, tx.nowMillis),
                    (.modifiedAt, tx.nowMillis),
                ])
            return try tx.context.itemList(id)
        }
    }

    /// The user's lists in order; `orderNumber` is 0…n−1 (seed 002: sorted by orderNumber).
    public func lists() throws -> [ItemList] {
        try read { context in
            try Row.fetchAll(
                context.db.cachedStatement(sql: "SELECT * FROM itemList ORDER BY position, id"),
                arguments: []
            ).enumerated().map { try ItemList(row: $1, orderNumber: $0) }
        }
    }

    /// A list with its items in order. Crossed-out items are left out unless `includeCrossedOut`, or,
    /// when that is nil, unless the user's `showCrossedOutItems` setting is on (seed 002).
    public func list(_ reference: ListID, includeCrossedOut: Bool? = nil) throws -> ItemList {
        try read { context in
            let id = try context.existing(reference, .itemList)
            var list = try context.itemList(id)
            let showCrossedOut = try includeCrossedOut ?? context.settings().showCrossedOutItems
            let imagesByItem = try context.itemImages(listId: id)
            list.items = try Row.fetchAll(
                context.db.cachedStatement(
                    sql: "SELECT * FROM item WHERE listId = ? ORDER BY position, id"),
                arguments: [id]
            ).enumerated().map { index, row in
                var item = try Item(row: row, orderNumber: index)
                item.images = imagesByItem[item.id.storage] ?? []
                return item
            }.filter { showCrossedOut || !$0.isCrossedOut }
            return list
        }
    }

    public func renameList(_ reference: ListID, to newName: String) throws -> ItemList {
        let name = try ItemList.validateName(newName)
        return try write { tx in
            let id = try tx.context.existing(reference, .itemList)
            try tx.update(.itemList, id: id, [(.name, name), (.modifiedAt, tx.nowMillis)])
            return try tx.context.itemList(id)
        }
    }

    /// Moves a list to `position` (0-based) among the user's lists.
    public func moveList(_ reference: ListID, to position: Int?) throws -> ItemList {
        try write { tx in
            let id = try tx.context.existing(reference, .itemList)
            let key = try tx.position(.itemList, parentId: nil, at: position, excluding: id)
            try tx.update(.itemList, id: id, [(.position, key), (.modifiedAt, tx.nowMillis)])
            return try tx.context.itemList(id)
        }
    }

    /// Seed 002: deleting a list deletes its items and their images.
    public func deleteList(_ reference: ListID) throws {
        try write { tx in try tx.deleteListRows(tx.context.existing(reference, .itemList)) }
    }

    // MARK: Items

    public func addItem(
        to listReference: ListID, title: String, description: String = "", quantity: Int32? = nil,
        position: Int? = nil
    ) throws -> Item {
        let title = try Item.validateTitle(title)
        let description = try Item.validateDescription(description)
        return try write { tx in
            let listId = try tx.context.existing(listReference, .itemList)
            let id = tx.newID()
            let key = try tx.position(.item, parentId: listId, at: position)
            try tx.insert(
                .item, id: id,
                [
                    (.listId, listId), (.title, title), (.description, description), (.quantity, quantity),
                    (.position, key), (.isCrossedOut, 0), (.createdAt, tx.nowMillis), (.modifiedAt, tx.nowMillis),
                ])
            try tx.touchList(listId)
            return try tx.context.item(id)
        }
    }

    /// Appends many items to a list in one transaction: all of them, or none if any is invalid.
    public func addItems(to listReference: ListID, _ drafts: [ItemDraft]) throws -> Int {
        var valid: [ItemDraft] = []
        valid.reserveCapacity(drafts.count)
        for (index, draft) in drafts.enumerated() {
            do {
                valid.append(try draft.validated())
            } catch CardboxError.invalid(let field, let reason) {
                throw CardboxError.invalid(field: "item \(index + 1) \(field)", reason: reason)
            }
        }
        return try write { tx in
            let listId = try tx.context.existing(listReference, .itemList)
            var previous = try tx.position(.item, parentId: listId, at: nil)
            for (index, draft) in valid.enumerated() {
                // Consecutive keys after the current last item, without a query per item.
                if index > 0 { previous = try PositionKey.between(previous, nil) }
                try tx.insert(
                    .item, id: tx.newID(),
                    [
                        (.listId, listId), (.title, draft.title), (.description, draft.description),
                        (.quantity, draft.quantity), (.position, previous), (.isCrossedOut, 0),
                        (.createdAt, tx.nowMillis), (.modifiedAt, tx.nowMillis),
                    ])
            }
            try tx.touchList(listId)
            return valid.count
        }
    }

    public func item(_ reference: ItemID) throws -> Item {
        try read { context in
            var item = try context.item(context.existing(reference, .item))
            item.images = try context.itemImages(itemId: item.id.storage)
            return item
        }
    }

    public func editItem(_ reference: ItemID, _ changes: ItemChanges) throws -> Item {
        var fields: Assignments<Columns.Item> = []
        if let title = changes.title { fields.append((.title, try Item.validateTitle(title))) }
        if let description = changes.description {
            fields.append((.description, try Item.validateDescription(description)))
        }
        if let quantity = changes.quantity { fields.append((.quantity, quantity)) }
        return try write { tx in
            let id = try tx.context.existing(reference, .item)
            if !fields.isEmpty {
                try tx.update(.item, id: id, fields + [(.modifiedAt, tx.nowMillis)])
                try tx.touchList(tx.context.item(id).listId.storage)
            }
            return try tx.context.item(id)
        }
    }

    /// Crosses an item out (done) or back in; nil toggles.
    public func crossItem(_ reference: ItemID, crossedOut: Bool? = nil) throws -> Item {
        try write { tx in
            let id = try tx.context.existing(reference, .item)
            let item = try tx.context.item(id)
            let newValue = crossedOut ?? !item.isCrossedOut
            if newValue != item.isCrossedOut {
                try tx.update(.item, id: id, [(.isCrossedOut, newValue.storage), (.modifiedAt, tx.nowMillis)])
                try tx.touchList(item.listId.storage)
            }
            return try tx.context.item(id)
        }
    }

    /// Moves an item to `position` (0-based) in its list, or in another list: one write of
    /// (list, position), so the item is always in exactly one place.
    public func moveItem(_ reference: ItemID, to position: Int?, inList listReference: ListID? = nil) throws -> Item {
        try write { tx in
            let id = try tx.context.existing(reference, .item)
            guard
                let fromList = try String.fetchOne(
                    tx.db.cachedStatement(sql: "SELECT listId FROM item WHERE id = ?"),
                    arguments: [id])
            else { throw CardboxError.notFound(kind: "item", reference: reference.description) }
            let listId = try listReference.map { try tx.context.existing($0, .itemList) } ?? fromList
            let key = try tx.position(.item, parentId: listId, at: position, excluding: id)
            try tx.update(.item, id: id, [(.listId, listId), (.position, key), (.modifiedAt, tx.nowMillis)])
            try tx.touchList(fromList)
            if listId != fromList { try tx.touchList(listId) }
            // Placed at `position` among the others, it is the position-th: no need to count.
            return try tx.context.item(id, orderNumber: position)
        }
    }

    public func deleteItem(_ reference: ItemID) throws {
        try write { tx in
            let id = try tx.context.existing(reference, .item)
            let listId = try tx.context.item(id).listId.storage
            try tx.deleteItemRows(id)
            try tx.touchList(listId)
        }
    }

    /// Deletes a list's crossed-out items with their images (a list app's "clear completed"): one
    /// transaction, each deletion recorded. Returns how many items went.
    public func clearCrossedOut(in listReference: ListID) throws -> Int {
        try write { tx in
            let listId = try tx.context.existing(listReference, .itemList)
            let ids = try String.fetchAll(
                tx.db.cachedStatement(
                    sql: "SELECT id FROM item WHERE listId = ? AND isCrossedOut = 1 ORDER BY id"),
                arguments: [listId])
            for id in ids { try tx.deleteItemRows(id) }
            if !ids.isEmpty { try tx.touchList(listId) }
            return ids.count
        }
    }

    // MARK: Item images

    /// An attached image and its bytes, exactly as attached.
    public func itemImageData(_ reference: ItemImageID) throws -> (image: ItemImage, data: Data) {
        let image = try read { context in
            let id = try context.existing(reference, .itemImage)
            let itemId = try String.fetchOne(
                context.db.cachedStatement(sql: "SELECT itemId FROM itemImage WHERE id = ?"),
                arguments: [id])
            guard let itemId, let image = try context.itemImages(itemId: itemId).first(where: { $0.id.storage == id })
            else { throw CardboxError.notFound(kind: "image", reference: reference.description) }
            return image
        }
        return (image, try imageData(sha256: image.sha256).data)
    }

    /// Adds an image to an item: JPEG, PNG or HEIC by content, at most 5 MB, at most 10 per item (seed 002).
    public func addItemImage(to itemReference: ItemID, data: Data) throws -> ItemImage {
        try write(decodingImages: Self.decoding(data)) { tx in
            let itemId = try tx.context.existing(itemReference, .item)
            let count = try tx.context.count(
                "SELECT COUNT(*) FROM itemImage WHERE itemId = ?", [itemId])
            guard count < Limits.imagesPerItem else {
                throw CardboxError.invalid(
                    field: "images", reason: "an item holds at most \(Limits.imagesPerItem) images; it has \(count)")
            }
            let (hash, _) = try tx.storeImage(data)
            let id = tx.newID()
            let key = try tx.position(.itemImage, parentId: itemId, at: nil)
            try tx.insert(
                .itemImage, id: id,
                [(.itemId, itemId), (.imageHash, hash), (.position, key), (.createdAt, tx.nowMillis)])
            try tx.update(.item, id: itemId, [(.modifiedAt, tx.nowMillis)])
            guard let image = try tx.context.itemImages(itemId: itemId).first(where: { $0.id.storage == id }) else {
                throw CardboxError.notFound(kind: "image", reference: id)
            }
            return image
        }
    }

    public func itemImages(of itemReference: ItemID) throws -> [ItemImage] {
        try read { context in try context.itemImages(itemId: context.existing(itemReference, .item)) }
    }

    public func removeItemImage(_ reference: ItemImageID) throws {
        try write { tx in
            let id = try tx.context.existing(reference, .itemImage)
            guard
                let row = try Row.fetchOne(
                    tx.db.cachedStatement(
                        sql: "SELECT itemId, imageHash FROM itemImage WHERE id = ?"),
                    arguments: [id])
            else { throw CardboxError.notFound(kind: "image", reference: reference.description) }
            let image = TableRow<Columns.ItemImage>(row)
            try tx.delete(.itemImage, id: id)
            try tx.update(.item, id: image[.itemId], [(.modifiedAt, tx.nowMillis)])
            try tx.collectImages([image[.imageHash] as String])
        }
    }
}

extension WriteContext {
    /// A list's `modifiedAt` follows changes to its items (seed 002: the list's last modification).
    func touchList(_ listId: String) throws {
        try update(.itemList, id: listId, [(.modifiedAt, nowMillis)])
    }
}

extension StoreContext {
    func itemList(_ id: String) throws -> ItemList {
        guard
            let row = try Row.fetchOne(
                db.cachedStatement(sql: "SELECT * FROM itemList WHERE id = ?"),
                arguments: [id])
        else { throw CardboxError.notFound(kind: "list", reference: id) }
        let position: String = TableRow<Columns.ItemList>(row)[.position]
        return try ItemList(
            row: row, orderNumber: try orderNumber(.itemList, parentId: nil, position: position, id: id))
    }

    /// An item; `orderNumber`, when the caller knows it (it just placed the item), spares counting
    /// the siblings before it.
    func item(_ id: String, orderNumber known: Int? = nil) throws -> Item {
        guard
            let row = try Row.fetchOne(
                db.cachedStatement(sql: "SELECT * FROM item WHERE id = ?"), arguments: [id])
        else { throw CardboxError.notFound(kind: "item", reference: id) }
        let item = TableRow<Columns.Item>(row)
        let orderNumber = try known ?? orderNumber(.item, parentId: item[.listId], position: item[.position], id: id)
        return try Item(row: row, orderNumber: orderNumber)
    }

    func itemImages(itemId: String) throws -> [ItemImage] {
        try itemImages(where: "itemImage.itemId = ?", itemId)[itemId] ?? []
    }

    func itemImages(listId: String) throws -> [String: [ItemImage]] {
        try itemImages(
            where: "itemImage.itemId IN (SELECT id FROM item WHERE listId = ?)", listId)
    }

    private func itemImages(where condition: String, _ values: String...) throws -> [String: [ItemImage]] {
        let rows = try Row.fetchAll(
            db.cachedStatement(
                sql: """
                    SELECT itemImage.id, itemImage.itemId, itemImage.imageHash, itemImage.createdAt, image.mimeType,
                           image.byteCount
                    FROM itemImage JOIN image ON image.sha256 = itemImage.imageHash
                    WHERE \(condition) ORDER BY itemImage.itemId, itemImage.position, itemImage.id
                    """), arguments: StatementArguments(values))
        var result: [String: [ItemImage]] = [:]
        for row in rows {
            let (fetched, row) = (row, TableRow<Columns.ItemImage>(row))
            let itemId: String = row[.itemId]
            // Two devices may each add images offline: after the merge an item shows its first ten
            // (by position), the same ten on every device; the rest stay stored, out of view.
            guard (result[itemId]?.count ?? 0) < Limits.imagesPerItem else { continue }
            let image = ItemImage(
                id: try .init(stored: row.id), itemId: try .init(stored: itemId),
                orderNumber: result[itemId]?.count ?? 0,
                // The image's own columns, joined from its table.
                mimeType: fetched["mimeType"], byteCount: fetched["byteCount"], sha256: row[.imageHash],
                createdAt: Date(storageMillis: row[.createdAt]))
            result[itemId, default: []].append(image)
        }
        return result
    }
}

extension ItemList {
    init(row: Row, orderNumber: Int) throws {
        let row = TableRow<Columns.ItemList>(row)
        self.init(
            id: try .init(stored: row.id), name: row[.name], orderNumber: orderNumber,
            isArchived: row[.isArchived],
            createdAt: Date(storageMillis: row[.createdAt]), modifiedAt: Date(storageMillis: row[.modifiedAt]))
    }
}

extension Item {
    init(row: Row, orderNumber: Int) throws {
        let row = TableRow<Columns.Item>(row)
        self.init(
            id: try .init(stored: row.id), listId: try .init(stored: row[.listId]), title: row[.title],
            description: row[.description], quantity: row[.quantity], orderNumber: orderNumber,
            isCrossedOut: row[.isCrossedOut], createdAt: Date(storageMillis: row[.createdAt]),
            modifiedAt: Date(storageMillis: row[.modifiedAt]))
    }
}
