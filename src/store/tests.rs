use super::*;
use crate::engine::{Pit, Ruleset, Side};

/// A store in a test's own folder (a fresh name under TMPDIR), removed
/// when the test is done.
fn temp_store(name: &str) -> TempStore {
    let dir = tempfile::Builder::new()
        .prefix(&format!("mancala-store-{name}-"))
        .tempdir()
        .unwrap();
    TempStore {
        store: Store::open(dir.path()).unwrap(),
        _dir: dir,
    }
}

struct TempStore {
    store: Store,
    _dir: tempfile::TempDir,
}

impl std::ops::Deref for TempStore {
    type Target = Store;
    fn deref(&self) -> &Store {
        &self.store
    }
}

fn sample(id: &str) -> GameRecord {
    GameRecord {
        turns: vec![Turn {
            side: Side::South,
            sowings: vec!["c".parse().unwrap(), "f".parse().unwrap()],
            time: 100,
        }],
        ..GameRecord::between_alice_and_bob(id, Ruleset::Waurie)
    }
}

#[test]
fn records_round_trip_typed_through_the_file() {
    let store = temp_store("round-trip");
    let record = sample("abcdef");
    store.save_game(&record).unwrap();
    let text = fs::read_to_string(store.dir().join("abcdef.json")).unwrap();
    use std::os::unix::fs::PermissionsExt;
    let mode = fs::metadata(store.dir().join("abcdef.json"))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o600, "the owner's alone");
    assert!(text.contains(r#""ruleset":"waurie""#), "{text}");
    assert!(text.contains(r#""sowings":["c","f"]"#), "{text}");
    let loaded = store.load_game(&record.id).unwrap().unwrap();
    assert_eq!(loaded, record);
    let game = loaded.game().unwrap();
    assert_eq!(game.ply(), 2, "c ends in the endpit: f is the same turn");
    assert_eq!(game.to_move(), Some(Side::North));
    assert_eq!(store.list().unwrap().games.len(), 1);
    assert!(store
        .load_game(&GameId::parse("zzzzzz").unwrap())
        .unwrap()
        .is_none());
    assert!(GameId::parse("../etc").is_none());
}

#[test]
fn a_game_of_format_2_is_read_and_saved_as_format_3() {
    let store = temp_store("format-2");
    let record = sample("abcdef");
    store.save_game(&record).unwrap();
    let path = store.dir().join("abcdef.json");
    let text = fs::read_to_string(&path).unwrap();
    assert!(text.contains("\"format\":3"), "{text}");
    fs::write(&path, text.replace("\"format\":3", "\"format\":2")).unwrap();
    let loaded = store.load_game(&record.id).unwrap().unwrap();
    assert_eq!(loaded, record, "the same game, its format now 3");
    store.save_game(&loaded).unwrap();
    assert!(fs::read_to_string(&path).unwrap().contains("\"format\":3"));
}

#[test]
fn a_record_of_a_newer_format_is_refused_and_left_untouched() {
    let store = temp_store("future");
    let mut record = sample("abcdef");
    record.format = FORMAT + 1;
    store.save_game(&record).unwrap();
    let before = fs::read(store.dir().join("abcdef.json")).unwrap();
    let err = store.load_game(&record.id).unwrap_err();
    assert!(matches!(err, StoreError::Future { format, .. } if format == FORMAT + 1));
    assert!(!err.is_transient());
    assert!(err.to_string().contains("newer"), "{err}");
    let listing = store.list().unwrap();
    assert_eq!((listing.games.len(), listing.unreadable.len()), (0, 1));
    assert_eq!(fs::read(store.dir().join("abcdef.json")).unwrap(), before);
}

#[test]
fn a_damaged_record_is_reported_not_skipped() {
    let store = temp_store("damaged");
    store.save_game(&sample("abcdef")).unwrap();
    fs::write(store.dir().join("ghijkm.json"), "{\"format\": 2, \"id\": ").unwrap();
    let listing = store.list().unwrap();
    assert_eq!(listing.games.len(), 1);
    assert!(
        matches!(&listing.unreadable[..], [StoreError::Corrupt { path, .. }] if path.ends_with("ghijkm.json"))
    );
    // Turns the rules refuse are found on replay.
    let mut record = sample("abcdef");
    record.turns[0].sowings.push(Pit::new(0));
    assert!(record.game().is_err());
}

#[test]
fn a_lost_key_is_an_error_once_the_store_holds_games() {
    let store = temp_store("lost-key");
    let first = store
        .secrets()
        .unwrap()
        .token(&GameId::parse("abcdef").unwrap(), Side::South);
    store.save_game(&sample("abcdef")).unwrap();
    fs::remove_file(store.dir().join("key")).unwrap();
    let err = store.secrets().err().unwrap();
    assert!(matches!(err, StoreError::KeyMissing { .. }), "{err}");
    assert!(
        err.to_string().contains("restore it from a backup"),
        "{err}"
    );
    assert!(!store.dir().join("key").exists(), "no new key is made");
    assert!(first.starts_with("abcdef-"));
}

#[test]
fn opening_an_existing_folder_leaves_its_permissions_alone() {
    use std::os::unix::fs::PermissionsExt;
    let temp = tempfile::Builder::new()
        .prefix("mancala-store-perm-")
        .tempdir()
        .unwrap();
    let dir = temp.path().join("store");
    fs::create_dir_all(&dir).unwrap();
    fs::set_permissions(&dir, fs::Permissions::from_mode(0o750)).unwrap();
    Store::open(&dir).unwrap();
    assert_eq!(
        fs::metadata(&dir).unwrap().permissions().mode() & 0o777,
        0o750
    );
    let fresh = dir.join("new");
    Store::open(&fresh).unwrap();
    assert_eq!(
        fs::metadata(&fresh).unwrap().permissions().mode() & 0o777,
        0o700
    );
}

#[test]
fn keys_and_ids_derive_from_the_secret() {
    let store = temp_store("keys");
    let secrets = store.secrets().unwrap();
    let id = GameId::parse("abcdef").unwrap();
    let south = secrets.token(&id, Side::South);
    let north = secrets.token(&id, Side::North);
    assert_ne!(south, north);
    assert_eq!(secrets.check(&south), Some((id.clone(), Side::South)));
    assert_eq!(secrets.check(&north), Some((id.clone(), Side::North)));
    assert_eq!(secrets.check("abcdef-000000000000"), None);
    let other = GameId::parse("ghijkm").unwrap();
    assert_eq!(
        secrets.check(
            &secrets
                .token(&other, Side::South)
                .replace("ghijkm", "abcdef")
        ),
        None
    );
    let mail = MailKey("0123".into());
    assert_eq!(secrets.game_id(&mail, 0), secrets.game_id(&mail, 0));
    assert_ne!(secrets.game_id(&mail, 0), secrets.game_id(&mail, 1));
    assert_eq!(
        secrets.address_digest("Alice@Players.example"),
        secrets.address_digest("alice@players.example")
    );
    let again = store.secrets().unwrap();
    assert_eq!(again.token(&id, Side::South), south);
}

#[test]
fn the_ledger_settles_each_reply_on_its_own() {
    let mut ledger = Ledger::default();
    let envelope = |id: &str| Outgoing {
        message_id: id.into(),
        event: 0,
        to: Mailbox {
            name: None,
            address: "a@x".into(),
        },
        reply_to: None,
        subject: "s".into(),
        body: "b".into(),
        in_reply_to: None,
        references: vec![],
        html: None,
        delivery: Delivery::Pending,
    };
    let mail = MailKey("m1".into());
    assert_eq!(
        ledger.record(
            mail.clone(),
            vec![envelope("r1"), envelope("r2")],
            5,
            Memory::Recent
        ),
        1
    );
    assert_eq!(ledger.handled(&mail), Some(1));
    assert_eq!(ledger.pending().count(), 2);
    assert!(
        ledger.pending().all(|e| e.event == 1),
        "marked with its event"
    );
    ledger.settle("r1", Delivery::Sent);
    assert_eq!(
        ledger
            .pending()
            .map(|e| e.message_id.as_str())
            .collect::<Vec<_>>(),
        ["r2"]
    );
    ledger.settle("r2", Delivery::Pending);
    assert_eq!(ledger.pending().count(), 1);
    assert_eq!(ledger.handled(&MailKey("m2".into())), None);
}

#[test]
fn a_planted_temp_symlink_does_not_make_the_referee_overwrite_its_target() {
    // The old writer opened `.NAME.PID.tmp` with O_CREAT|O_TRUNC, following
    // a symlink planted there by anyone who can write in a shared folder.
    let store = temp_store("planted-symlink");
    store.secrets().unwrap();
    let victim = store.dir().join("victim.txt");
    fs::write(&victim, "not the referee's").unwrap();
    let pid = std::process::id();
    for name in ["abcdef.json", "key"] {
        let planted = store.dir().join(format!(".{name}.{pid}.tmp"));
        std::os::unix::fs::symlink(&victim, &planted).unwrap();
    }
    store.save_game(&sample("abcdef")).unwrap();
    let sheet = store.dir().join("sheet.txt");
    write_atomically(store.dir(), &sheet, b"a sheet\n").unwrap();
    assert_eq!(fs::read_to_string(&victim).unwrap(), "not the referee's");
    assert_eq!(fs::read_to_string(&sheet).unwrap(), "a sheet\n");
    assert!(store.load_game(&sample("abcdef").id).unwrap().is_some());
    let planted = store.dir().join(format!(".abcdef.json.{pid}.tmp"));
    assert!(fs::symlink_metadata(&planted).unwrap().is_symlink());
    let temps = fs::read_dir(store.dir())
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().ends_with(".tmp"))
        .count();
    assert_eq!(
        temps, 2,
        "only the two planted links; no temporary file left"
    );
}

#[test]
fn a_games_ledger_knows_every_mail_it_handled_and_a_senders_only_the_last() {
    let key = |i: usize| MailKey::of_message_id(&format!("m{i}@x"));
    for (memory, remembered) in [(Memory::Lifelong, true), (Memory::Recent, false)] {
        let mut ledger = Ledger::default();
        for i in 0..HANDLED_KEPT + 5 {
            ledger.record(key(i), Vec::new(), 0, memory);
        }
        assert_eq!(ledger.handled.len(), HANDLED_KEPT, "{memory:?}");
        assert!(ledger.has_handled(&key(HANDLED_KEPT + 4)), "{memory:?}");
        for i in 0..5 {
            assert_eq!(ledger.has_handled(&key(i)), remembered, "{memory:?}: {i}");
        }
        assert!(!ledger.has_handled(&key(HANDLED_KEPT + 5)), "{memory:?}");
        // 16 bytes a mail beyond those kept whole.
        assert_eq!(ledger.older.len(), if remembered { 5 * 16 } else { 0 });
    }
}

#[test]
fn a_reply_is_kept_in_the_game_file_as_format_3_has_always_written_it() {
    // The one outgoing type is stored as is: its recipient flattened into
    // `to_name` and `to`, so files written before it read, and read back.
    let written = r#"{"message_id":"abcdef.2.south@r.example","event":2,"to_name":"Alice","to":"alice@x.example","reply_to":null,"subject":"s","body":"b","in_reply_to":null,"references":["m1"],"delivery":{"state":"pending"}}"#;
    let reply: Outgoing = serde_json::from_str(written).unwrap();
    assert_eq!(reply.to.name.as_deref(), Some("Alice"));
    assert_eq!(reply.to.address, "alice@x.example");
    assert_eq!((reply.event, reply.html.as_deref()), (2, None));
    assert_eq!(serde_json::to_string(&reply).unwrap(), written);
    let sent = written.replace("pending", "sent");
    let reply: Outgoing = serde_json::from_str(&sent).unwrap();
    assert_eq!(reply.delivery, Delivery::Sent);
}
