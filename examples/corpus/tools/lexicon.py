#!/usr/bin/python3
"""lexicon.py - the everyday lexicon: forms, checks, and the grammar.

    examples/corpus/tools/lexicon.py [--check] [--report]

Reads the hand-written word lists in examples/corpus/lexicon/ (nouns.tsv,
adjectives.tsv, verbs.tsv: an English word, its Brazilian Portuguese
translation, the grammar class it joins) and derives every form the grammar
needs: Portuguese plurals and gender agreement, the present, the pretérito
perfeito, the infinitive and the gerúndio (estar + gerúndio is the
progressive), the English 3rd person, past and -ing forms.  It writes

  examples/corpus/lexicon/forms.tsv   every derived form, one entry a line,
                                      with whether dict-freedict-eng-por
                                      lists the pair ("freedict" / "hand")
  examples/corpus/everyday.yaml       examples/corpus/grammar.yaml with these
                                      words added to its classes, verbs with
                                      a gerund, a sentence-final "." on every
                                      template, and the templates of
                                      lexicon/templates.yaml (questions,
                                      progressive, idioms, ...)

--check writes nothing and exits 1 when either file differs from what it
would write (tests/lexicon.test).  --report checks every Portuguese form
with hunspell (hunspell-pt-br) and every English one with wamerican's
word list, prints the counts and the forms they reject, and exits 1 if
any is rejected.  Only the Python standard library."""
import gzip, os, re, subprocess, sys

HERE = os.path.dirname(os.path.abspath(__file__))
CORPUS = os.path.dirname(HERE)
LEX = os.path.join(CORPUS, "lexicon")
FREEDICT = "/usr/share/dictd/freedict-eng-por.dict.dz"
HUNSPELL_DIC = "/usr/share/hunspell/pt_BR.dic"
WORDS = "/usr/share/dict/american-english"


def rows(name):
    out = []
    for ln, line in enumerate(open(os.path.join(LEX, name), encoding="utf-8"), 1):
        line = line.rstrip("\n")
        if not line or line.startswith("#"):
            continue
        f = line.split("\t")
        out.append((ln, f))
    return out


# ---- Portuguese ----

def pt_plural(w):
    if " " in w:          # "guarda-chuva" has none; first word of a phrase
        h, t = w.split(" ", 1)
        return pt_plural(h) + " " + t
    if w.endswith("ão"):
        return w[:-2] + "ões"
    if w.endswith("m"):
        return w[:-1] + "ns"
    if w[-1] in "rz":
        return w + "es"
    if w.endswith("al"):
        return w[:-2] + "ais"
    if w.endswith("el"):
        return w[:-2] + "éis"
    if w.endswith("ol"):
        return w[:-2] + "óis"
    if w.endswith("ul"):
        return w[:-2] + "uis"
    if w.endswith("s") or w.endswith("x"):
        return w
    return w + "s"


def pt_fem(w):
    if w.endswith("o"):
        return w[:-1] + "a"
    if w.endswith("ês"):
        return w[:-2] + "esa"
    if w.endswith("or"):
        return w + "a"
    return w


def pt_verb(inf, ov):
    """The eleven forms of the grammar's verb classes (the imperative last)."""
    stem, end = inf[:-2], inf[-2:]
    # spelling before e/i: -car -> qu, -gar -> gu, -çar -> c; -cer -> ç and
    # -ger/-gir -> j before o/a
    e_stem = stem
    if end == "ar":
        if stem.endswith("c"):
            e_stem = stem[:-1] + "qu"
        elif stem.endswith("g"):
            e_stem = stem + "u"
        elif stem.endswith("ç"):
            e_stem = stem[:-1] + "c"
    o_stem = stem
    if end in ("er", "ir"):
        if stem.endswith("c"):
            o_stem = stem[:-1] + "ç"
        elif stem.endswith("g"):
            o_stem = stem[:-1] + "j"
    if end == "ar":
        f = [o_stem + "o", stem + "a", stem + "amos", stem + "am",
             e_stem + "ei", stem + "ou", stem + "amos", stem + "aram", inf, stem + "ando"]
    elif end == "er":
        f = [o_stem + "o", stem + "e", stem + "emos", stem + "em",
             stem + "i", stem + "eu", stem + "emos", stem + "eram", inf, stem + "endo"]
    elif end == "ir":
        f = [o_stem + "o", stem + "e", stem + "imos", stem + "em",
             stem + "i", stem + "iu", stem + "imos", stem + "iram", inf, stem + "indo"]
    else:
        raise ValueError("not an infinitive: " + inf)
    keys = ["p1", "p3", "p1pl", "p3pl", "pp1", "pp3", "pp1pl", "pp3pl", "inf", "ger"]
    out = [ov.get(k, v) for k, v in zip(keys, f)]
    # the imperative (você): the present subjunctive, abra / coma / faça
    imp = e_stem + "e" if end == "ar" else out[0][:-1] + "a"
    return out + [ov.get("imp", imp)]


# ---- English ----

def en_plural(w):
    if re.search(r"[^aeiou]y$", w):
        return w[:-1] + "ies"
    if re.search(r"(s|x|z|ch|sh)$", w) or w in ("potato", "tomato", "mango", "hero", "echo"):
        return w + "es"
    return w + "s"


def en_third(w):
    h, _, t = w.partition(" ")
    return (en_plural(h) + (" " + t if t else "")) if h != "have" else "has"


def en_past(w):
    h, _, t = w.partition(" ")
    if h.endswith("e"):
        p = h + "d"
    elif re.search(r"[^aeiou]y$", h):
        p = h[:-1] + "ied"
    else:
        p = h + "ed"
    return p + (" " + t if t else "")


def en_ing(w):
    h, _, t = w.partition(" ")
    if h.endswith("e") and not h.endswith(("ee", "oe", "ye")) and len(h) > 2:
        g = h[:-1] + "ing"
    elif h.endswith("ie"):
        g = h[:-2] + "ying"
    else:
        g = h + "ing"
    return g + (" " + t if t else "")


def overrides(f, n):
    """key=form items; a form may have spaces (en3=takes care of) and runs to
    the next key=."""
    text = f[n] if len(f) > n else ""
    return dict(re.findall(r"(\w+)=(.*?)(?=\s+\w+=|\s*$)", text))


def weight(ov):
    """weight=N (a verb's overrides, an adjective's 4th column, a noun's
    5th) as the grammar's entry feature "weight: N" (drawn N times as
    often), or ""."""
    w = ov.get("weight", "")
    if w and not w.isdigit():
        raise ValueError("weight=%s is not a whole number" % w)
    return "weight: " + w if w else ""


def join(*features):
    return ", ".join(f for f in features if f)


# ---- the entries ----

def entries():
    """[(class, kind, en_forms, pt_forms, extra, en_key, pt_key)]"""
    out = []
    for ln, f in rows("nouns.tsv"):
        cls, en, pt, g = f[0], f[1], f[2], f[3]
        en_sg, _, en_pl = en.partition("/")
        pt_sg, _, pt_pl = pt.partition("/")
        out.append((cls, "noun", [en_sg, en_pl or en_plural(en_sg)],
                    [pt_sg, pt_pl or pt_plural(pt_sg)],
                    join("g: " + g, weight(overrides(f, 4))), en_sg, pt_sg))
    for ln, f in rows("adjectives.tsv"):
        cls, en, pt = f[0], f[1], f[2]
        forms = pt.split("/")
        if len(forms) == 1:
            m = forms[0]
            fe = pt_fem(m)
            forms = [m, fe, pt_plural(m), pt_plural(fe)]
        # optional 4th column weight=N: a common word drawn N times as often
        extra = weight(overrides(f, 3))
        out.append((cls, "adj", [en], forms, extra, en, forms[0]))
    for ln, f in rows("verbs.tsv"):
        cls, en, inf = f[0], f[1], f[2]
        ov = overrides(f, 3)
        w = weight(ov)
        base, _, past = en.partition("/")
        past = ov.get("en_past", past or en_past(base))
        en_f = [ov.get("en3", en_third(base)), base, past, ov.get("enger", en_ing(base))]
        if past == base:
            # read, cut, put: "i read" is present or past and the corpus
            # must not teach both at random.  The present for every
            # subject; the past only where English shows it (she read, not
            # reads), and every form without a person (infinitive,
            # gerund, imperative)
            out.append((cls, "verb", en_f, pt_verb(inf, ov), join("t: pres", w), base, inf))
            out.append((cls, "verb", en_f, pt_verb(inf, ov), join("p: p3, n: sg", w), base,
                        inf))
            continue
        out.append((cls, "verb", en_f, pt_verb(inf, ov), w, base, inf))
    for ln, f in rows("other.tsv"):
        cls, en, pt = f[0], f[1], f[2]
        extra = f[3] if len(f) > 3 else ""
        out.append((cls, "word", en.split("/"), pt.split("/"), extra, en.split("/")[0],
                    pt.split("/")[0]))
    return out


def freedict():
    """English headword -> set of Portuguese translations."""
    d = {}
    if not os.path.exists(FREEDICT):
        return None
    head = None
    for line in gzip.open(FREEDICT, "rt", encoding="utf-8"):
        line = line.rstrip("\n")
        m = re.match(r"^(\S.*?) /", line)
        if m and not line.startswith(" "):
            head = m.group(1).lower()
            d.setdefault(head, set())
        elif head and line.strip():
            for t in re.split(r",\s*", re.sub(r"^\s*\d+\.\s*", "", line)):
                d[head].add(t.strip().lower())
    return d


def forms_tsv(es):
    fd = freedict()
    lines = ["# forms.tsv - generated by examples/corpus/tools/lexicon.py from nouns.tsv,",
             "# adjectives.tsv and verbs.tsv; do not edit.  Columns: class, English",
             "# forms, Portuguese forms (noun sg/pl; adjective m.sg/f.sg/m.pl/f.pl; verb",
             "# present p1.sg/p3.sg/p1.pl/p3.pl, pretérito perfeito the same,",
             "# infinitive, gerúndio), source (freedict: dict-freedict-eng-por lists",
             "# the pair; hand: it does not, the translation is the list's own)."]
    nfd = 0
    for cls, kind, en, pt, extra, ek, pk in es:
        src = "hand"
        if fd is not None and pk in fd.get(ek, ()):
            src = "freedict"
        elif fd is None:
            src = "?"
        nfd += src == "freedict"
        lines.append("\t".join([cls, "/".join(en), "/".join(pt), src]))
    return "\n".join(lines) + "\n", nfd


# ---- the grammar ----

def en_tokens(w):
    """An English form as the tokenizer splits it: the apostrophe is a token
    of its own (don't -> don ' t), which is how the grammar must write it."""
    return w.replace("'", " ' ")


def yaml_entry(kind, en, pt, extra):
    q = lambda s: '"%s"' % s if re.search(r"[:#,{}\[\]!?]", s) else s
    body = "en: %s, pt: %s" % (q("/".join(en_tokens(w) for w in en)), q("/".join(pt)))
    if extra:
        body += ", " + extra
    return "      - {%s}" % body


NUMBERS = [("one", "um/uma"), ("two", "dois/duas"), ("three", "três"), ("four", "quatro"),
           ("five", "cinco"), ("six", "seis"), ("seven", "sete"), ("eight", "oito"),
           ("nine", "nove"), ("ten", "dez"), ("eleven", "onze"), ("twelve", "doze"),
           ("fifteen", "quinze"), ("twenty", "vinte"),
           # ninth session: the teens and the tens in words
           ("thirteen", "treze"), ("fourteen", "catorze"), ("sixteen", "dezesseis"),
           ("seventeen", "dezessete"), ("eighteen", "dezoito"), ("nineteen", "dezenove"),
           ("thirty", "trinta"), ("forty", "quarenta"), ("fifty", "cinquenta"),
           ("sixty", "sessenta"), ("seventy", "setenta"), ("eighty", "oitenta"),
           ("ninety", "noventa"), ("a hundred", "cem")] + \
    [(str(n), str(n)) for n in range(2, 101)]   # digits stay digits
WEATHER = [("raining", "chovendo"), ("snowing", "nevando"), ("cold", "frio"),
           ("hot", "quente"), ("sunny", "ensolarado"), ("windy", "ventando"),
           ("cloudy", "nublado"), ("warm", "quente")]
VERB_CLASSES = ["vt_person", "vt_thing", "vi", "vde", "modal", "modal_de", "go", "give",
                "vmove"]
# can + a verb: saber for a skill one learns (i can swim -> eu sei nadar),
# conseguir for what one manages (i can't sleep -> eu não consigo dormir,
# can you see the board ? -> você consegue ver o quadro ?), poder for the
# rest (i can go -> eu posso ir): the vi and vt_thing verbs of each
SKILL = {"swim", "sing", "dance", "cook", "draw", "paint", "drive", "skate", "ski", "dive",
         "read", "write", "surf", "sew", "sail", "type", "count", "ride a bike", "ride a horse"}
MANAGE_VI = {"sleep", "breathe", "walk", "understand"}
MANAGE_VT = {"see", "find", "hear", "understand"}
# can i have ... ? asks for something (can-have-food: posso comer uma maçã ?),
# so can + have is not poder + ter
REQUEST_VT = {"have"}


def enclitic(inf):
    """The infinitive with an object pronoun after it, for o/a/os/as:
    encontrar -> encontrá-lo, ver -> vê-lo, abrir -> abri-lo; None where
    the rule does not reach (pôr, a verb of two words)."""
    accent = {"ar": "á", "er": "ê", "ir": "i"}
    if " " in inf or inf[-2:] not in accent:
        return None
    stem = inf[:-2] + accent[inf[-2:]]
    if inf[-2:] == "ir" and inf[-3:-2] in ("a", "u") and not inf.endswith(("guir", "quir")):
        stem = inf[:-2] + "í"       # the i of a hiatus keeps its accent: construí-lo, atraí-lo
    return [stem + "-" + p for p in ("lo", "la", "los", "las")]


def encl_classes(by_class):
    """vt_encl and vmanage_encl: verbs whose object pronoun comes after the
    infinitive (i want to see her -> eu quero vê-la; can you see her ? ->
    você consegue vê-la ?), the forms keyed by the pronoun's gender and
    number."""
    def encl(es):
        out = []
        for e in es:
            f = enclitic(e[3][8])
            if f and e[5] not in {o[5] for o in out}:
                out.append((e[0], "word", [e[2][1]], f, "", e[5], f[0]))
        return out
    vt = by_class.get("vt_person", [])
    by_class["vt_encl"] = encl(vt)
    by_class["vmanage_encl"] = encl([e for e in vt if e[5] in MANAGE_VT])


def can_classes(by_class):
    """The verb classes of can, derived from vi and vt_thing."""
    vi, vt = by_class.get("vi", []), by_class.get("vt_thing", [])
    by_class["vskill"] = [e for e in vi if e[5] in SKILL]
    by_class["vmanage"] = [e for e in vi if e[5] in MANAGE_VI]
    by_class["vi_can"] = [e for e in vi if e[5] not in SKILL | MANAGE_VI]
    by_class["vmanage_t"] = [e for e in vt if e[5] in MANAGE_VT]
    by_class["vt_can"] = [e for e in vt if e[5] not in MANAGE_VT | REQUEST_VT]


# names students give themselves: the same in both languages (not words of
# either dictionary, so not checked)
NAMES = ["anna", "maria", "john", "pedro", "lucas", "sofia", "mike", "sarah", "tom",
         "emma", "david", "laura", "carlos", "julia", "ana", "daniel", "peter", "lisa",
         "ben", "kate", "paulo", "marcos", "beatriz", "rafael", "alice", "joão", "luiza",
         "gabriel", "mary", "james",
         # seventh session: more names, so that a name is copied, not translated
         "max", "jack", "sam", "leo", "oliver", "harry", "paul", "mark", "tim", "nick",
         "ryan", "kevin", "chris", "bruno", "felipe", "gustavo", "mateus", "thiago",
         "diego", "ricardo", "miguel", "arthur", "bernardo", "george", "henry", "jennifer",
         "emily", "olivia", "sophie", "lily", "mia", "grace", "lucy", "amy", "jane",
         "susan", "jessica", "rachel", "helen", "sara", "fernanda", "camila", "juliana",
         "mariana", "bianca", "valentina", "helena", "isabela", "carol", "linda",
         # fifth round: the names of textbooks and classrooms, so that a
         # name the model never met is copied piece by piece (carla, not
         # "carrela")
         "carla", "paula", "clara", "lara", "nina", "vera", "eva",
         "luna", "nora", "ella", "zoe", "chloe", "hannah", "sophia", "isabel", "rita",
         "monica", "patricia", "sandra", "claudia", "natalia", "gloria", "alicia",
         "marta", "diana", "elena", "irene", "lucia", "teresa", "amelia", "ava", "isla",
         "maya", "layla", "nicole", "kelly", "megan", "anne", "beth", "meg", "liz",
         "tina", "molly", "larissa", "yasmin", "giovanna", "manuela", "lorena",
         "francisco", "rodrigo", "eduardo", "marcelo", "vitor", "caio", "enzo", "davi",
         "heitor", "lorenzo", "samuel", "pietro", "benjamin", "nicolas", "joaquim",
         "murilo", "igor", "hugo", "ivan", "oscar", "victor", "adam", "alex", "andy",
         "bob", "charlie", "dan", "ed", "eric", "frank", "fred", "greg", "ian", "jake",
         "joe", "josh", "kyle", "liam", "luke", "matt", "noah", "owen", "pete", "rob",
         "steve", "ted", "tony", "zack", "ethan", "mason", "logan", "jason", "brian",
         "simon", "martin", "robert", "thomas", "william", "richard", "edward",
         "anthony", "steven", "andrew", "joshua", "kenji", "yuki", "ali", "omar", "raj",
         "wei", "kim", "lee", "pablo", "juan", "luis", "jorge", "raul", "tomas",
         "mario", "luigi", "marco"]
# the fifth round: family names after mr, mrs and ms (not words of either
# dictionary, so not checked; brown and white are copied there too)
SURNAMES = ["smith", "brown", "jones", "johnson", "williams", "taylor", "wilson", "davis",
            "miller", "clark", "lewis", "walker", "hall", "young", "king", "wright",
            "scott", "green", "baker", "adams", "nelson", "hill", "moore", "white",
            "harris", "thompson", "garcia", "lopez", "silva", "santos", "oliveira",
            "souza", "costa", "pereira", "almeida", "ferreira", "rodrigues", "lima",
            "gomes", "ribeiro", "carvalho", "martins", "rocha", "parker", "evans",
            "collins", "turner", "morris", "cooper", "ward", "bell", "reed", "cook"]
# the women's names of NAMES: maria is a teacher -> maria é professora
FEMALE = {"anna", "maria", "sofia", "sarah", "emma", "laura", "julia", "ana", "lisa", "kate",
          "beatriz", "alice", "luiza", "mary", "jennifer", "emily", "olivia", "sophie",
          "lily", "mia", "grace", "lucy", "amy", "jane", "susan", "jessica", "rachel",
          "helen", "sara", "fernanda", "camila", "juliana", "mariana", "bianca",
          "valentina", "helena", "isabela", "carol", "linda", "carla", "paula", "clara",
          "lara", "nina", "vera", "eva", "luna", "nora", "ella", "zoe", "chloe",
          "hannah", "sophia", "isabel", "rita", "monica", "patricia", "sandra",
          "claudia", "natalia", "gloria", "alicia", "marta", "diana", "elena", "irene",
          "lucia", "teresa", "amelia", "ava", "isla", "maya", "layla", "nicole",
          "kelly", "megan", "anne", "beth", "meg", "liz", "tina", "molly", "larissa",
          "yasmin", "giovanna", "manuela", "lorena", "yuki", "kim"}
# the new classes: (name, comment, definition lines); their words come
# from other.tsv.  ANY: a class whose words have no forms to agree
ANY = ["en: [any]", "pt: [any]"]
NEW_CLASSES = [
    ("there_q", "is there a cat ? -> há um gato ?",
     ["en: [pres.sg, pres.pl, past.sg, past.pl]", "pt: [pres, past]"]),
    ("can", "i can swim -> eu posso nadar", ["like: be"]),
    ("wh", "where do you live ? -> onde você mora ?", ANY),
    ("greeting", "thank you . -> obrigado .", ANY),
    ("hello", "hello , anna ! -> olá , anna !", ANY),
    ("obj_me", "help me ! -> me ajude !", ["like: subj"]),
    ("obj_near", "she is helping me -> ela está me ajudando", ["like: subj"]),
    # third session: bare nouns, professions by gender, contractions, home,
    # the weather, put
    ("mass", "i drink water . -> eu bebo água .", ANY),
    ("vfood", "verbs of food and drink, bare objects: i eat rice", ["like: vt_person"]),
    ("media", "i watch tv . -> eu assisto TV .", ANY),
    ("vwatch", "watch + a bare object", ["like: vt_person"]),
    ("vput", "put the book on the table -> coloque o livro na mesa", ["like: vt_person"]),
    ("job", "she is a teacher . -> ela é professora .",
     ["f: {p: p3}", "en: [sg, pl]", "pt: [m.sg, f.sg, m.pl, f.pl]"]),
    ("sbe", "i'm tired . -> eu estou cansado .", ["like: subj"]),
    ("sser", "she's a doctor . -> ela é médica .", ["like: subj"]),
    ("sbe_not", "i'm not tired . -> eu não estou cansado .", ["like: subj"]),
    ("cant", "i can't swim . -> eu não posso nadar .", ["like: be"]),
    ("wadj", "the weather is nice . -> o tempo está bom .", ANY),
    ("tstate", "with estar: the soup is hot -> a sopa está quente", ["like: size"]),
    ("container", "a glass of water -> um copo de água", ANY),
    ("abstract", "i need help . -> eu preciso de ajuda .", ANY),
    ("vhave", "i do not have time . -> eu não tenho tempo .", ["like: vt_person"]),
    ("lang", "i speak english . -> eu falo inglês .", ANY),
    ("vlang", "speak, study, learn + a language", ["like: vt_person"]),
    ("sport", "we play football . -> nós jogamos futebol .", ANY),
    ("vsport", "play a sport: jogar", ["like: vt_person"]),
    ("instrument", "she plays the guitar . -> ela toca violão .", ANY),
    ("vmusic", "play an instrument: tocar", ["like: vt_person"]),
    ("at_hour", "at nine -> às nove", ANY),
    ("vtime", "the shop opens at nine . -> a loja abre às nove .", ["like: vt_person"]),
    ("itis", "it is late . -> é tarde .", ANY),
    ("this_pro", "this is my friend . -> este é o meu amigo .",
     ["en: [sg, pl]", "pt: [m.sg, f.sg, m.pl, f.pl]"]),
    ("this_n", "what is this ? -> o que é isto ?", ANY),
    ("how_many", "how many books ... -> quantos livros ...", ["en: [any]", "pt: [m, f]"]),
    ("cost", "how much is the book ? -> quanto custa o livro ?", ["like: be"]),
    ("vknow", "know a fact: saber (know a person: conhecer)", ["like: vt_person"]),
    ("fact", "i know the answer . -> eu sei a resposta .", ANY),
    ("by", "by bus -> de ônibus", ANY),
    ("vtravel", "we travel by train . -> nós viajamos de trem .", ["like: vt_person"]),
    ("vlive", "we live in brazil . -> nós moramos no brasil .", ["like: vt_person"]),
    ("from_country", "i am from brazil . -> eu sou do brasil .", ANY),
    ("in_country", "in brazil -> no brasil", ANY),
    ("vfeel", "i feel tired . -> eu me sinto cansado .", ["like: vt_person"]),
    ("feel_adj", "i feel good . -> eu me sinto bem .", ANY),
    ("born", "i was born in brazil . -> eu nasci no brasil .", ["like: be"]),
    # seventh session: the near future, comparatives, the hour, age after i'm
    ("be_going", "i am (going to eat) . -> eu vou (comer) .", ["like: be"]),
    ("sgoing", "i'm (going to eat) . -> eu vou (comer) .", ["like: subj"]),
    ("sage", "i'm ten years old . -> eu tenho dez anos .", ["like: subj"]),
    ("cmp", "taller than me -> mais alto que eu", ["like: size"]),
    ("cmp_pro", "than me -> que eu", ANY),
    ("clock", "it is three o'clock . -> são três horas .", ANY),
    ("can_know", "i can speak english . -> eu sei falar inglês .", ["like: be"]),
    # eighth session: where a place is, go + -ing, like + -ing, cities
    ("be_fica", "the bank is next to the school . -> o banco fica ao lado da escola .",
     ["like: be"]),
    ("go_ir", "go (swimming): ir (nadar)", ["like: vt_person"]),
    ("go_ing", "we go swimming . -> nós vamos nadar .", ANY),
    ("like_ing", "i love dancing . -> eu amo dançar .", ["like: vt_person"]),
    ("like_ing_de", "i like reading . -> eu gosto de ler .", ["like: vt_person"]),
    ("city", "i live in london . -> eu moro em londres .", ANY),
    ("its", "it is (very cold in winter) -> faz (muito frio no inverno)",
     ANY),
    ("very_opt", "very or nothing", ANY),
    ("wfaz", "faz frio, faz calor", ANY),
    ("wverb", "it rains -> chove", ANY),
    ("lot_opt", "a lot or nothing", ANY),
    ("season", "in winter -> no inverno (where and when the weather is)",
     ANY),
    ("event", "what happens at a time: the party -> a festa",
     ["like: animal", "f: {p: p3}"]),
    ("be_event", "the party was great . -> a festa foi ótima . (ser of an event)",
     ["like: be"]),
    ("adj_event", "what an event is: easy, fun, boring", ["like: size"]),
    ("please_opt", ", please or nothing", ANY),
    ("may_can", "may i go ? / can i go ? -> posso ir ?", ANY),
    ("side", "the bank is on the left . -> o banco fica à esquerda .", ANY),
    ("be_afraid", "i am afraid of spiders . -> eu tenho medo de aranhas .", ["like: be"]),
    ("have_ill", "i have a headache . -> eu estou com dor de cabeça .", ["like: be"]),
    ("ailment", "a headache -> dor de cabeça", ANY),
    ("body", "my leg hurts . -> minha perna está doendo .", ["like: animal", "f: {p: p3}"]),
    # tenth session: body care, seasons as subjects, walking somewhere
    ("care_pl", "i brush my teeth -> eu escovo os dentes", ["like: animal"]),
    ("care_sg", "i wash my face -> eu lavo o rosto", ["like: animal"]),
    ("vcare", "brush, wash, dry: escovar, lavar, secar", ["like: vt_person"]),
    ("subj_self", "the subject whose body it is: i (my teeth), we (our hands)", ["like: subj"]),
    ("poss_self", "my, your, his... of the subject (English only: os dentes)",
     ANY),
    ("season_n", "summer is my favorite season . -> o verão é a minha estação favorita .",
     ANY),
    ("season_adj", "winter is cold . -> o inverno é frio .", ["like: size"]),
    ("vwalk", "i walk to school -> eu vou a pé para a escola", ["like: vt_person"]),
    ("walk_to", "to school -> para a escola", ANY),
    # tenth session, round 2: what a1-dev4 met
    ("hi", "hi ! how are you ? -> oi ! como você está ?", ANY),
    ("hi_mark", "the ! or , after hi", ANY),
    ("today_opt", "today or nothing: how are you today ?", ANY),
    ("friend_n", "my best friend -> o meu melhor amigo (a friend of either gender)",
     ["f: {p: p3}", "en: [sg, pl]", "pt: [m.sg, f.sg, m.pl, f.pl]"]),
    ("vpay", "pay: she paid in cash -> ela pagou em dinheiro", ["like: vt_person"]),
    ("hair_adj", "she has long hair . -> ela tem cabelo comprido .", ANY),
    ("eye_adj", "he has blue eyes . -> ele tem olhos azuis .", ANY),
    ("price", "it costs ten dollars -> custa dez dólares", ANY),
    ("vcost", "cost: this apple costs one dollar -> esta maçã custa um dólar",
     ["like: vt_person"]),
    ("sibling", "my older brother -> o meu irmão mais velho", ["like: animal", "f: {p: p3}"]),
    ("older", "older, younger: after the noun (irmão mais velho)", ["like: size"]),
    ("kind_of", "what kind of music do you like ? -> de que tipo de música você gosta ?",
     ANY),
    ("for_meal", "for breakfast -> no café da manhã", ANY),
    ("vt_encl", "i want to see her -> eu quero vê-la (the pronoun after the infinitive)",
     ["like: size"]),
    ("vmanage_encl", "can you see her ? -> você consegue vê-la ?", ["like: size"]),
    ("obj3", "him, her, them after an infinitive: vê-lo, vê-la, vê-los",
     ANY),
    ("one_a", "one, a: i have two brothers and one sister", ["en: [any]", "pt: [m, f]"]),
    ("drink_mass", "can i have some water ? -> posso tomar água ?", ANY),
    ("good_pre", "good, bad before the noun: um bom aluno", ["like: size"]),
    ("we_and", "my friends and i -> meus amigos e eu", ["like: subj"]),
    ("sbe_from", "i'm from brazil -> eu sou do brasil", ANY),
    ("nearest", "the nearest bank -> o banco mais próximo", ["like: size"]),
    ("here_there", "can i sit here ? -> posso sentar aqui ?", ANY),
    ("swill", "i will (call you) -> eu vou (te ligar)", ["like: subj"]),
    ("swill_not", "i won't (go) -> eu não vou (ir)", ["like: subj"]),
    ("will_aux", "will you come ? -> você vai vir ?", ["like: be"]),
    ("it_will", "it will (rain) -> vai (chover)", ANY),
    ("sgot", "i've got a dog -> eu tenho um cachorro", ["like: subj"]),
    ("poss_pro", "this book is mine -> este livro é meu", ["like: size"]),
    ("lent", "emprestado, after what one borrows", ["like: size"]),
    ("vborrow", "borrow: pegar ... emprestado", ["like: vt_person"]),
    ("info_n", "what's your phone number ? -> qual é o seu número de telefone ?",
     ANY),
    ("colour_w", "my favorite color is red -> a minha cor favorita é vermelho",
     ANY),
    ("vehicle", "a taxi -> um táxi", ["like: animal"]),
    ("subject_n", "math, art -> matemática, artes", ANY),
    ("called", "a dog called max -> um cachorro chamado max", ["like: size"]),
    ("good_at", "good at math -> bom em matemática", ["like: size"]),
    ("vlook", "you look tired -> você parece cansado", ["like: vt_person"]),
    ("vtake", "take a taxi -> pegar um táxi", ["like: vt_person"]),
    ("at_bare", "i'm at school -> eu estou na escola", ANY),
    ("bare_subj", "school starts at eight -> a escola começa às oito", ["like: subj"]),
    ("vbegin", "start, finish: começar, terminar", ["like: vt_person"]),
    ("family_bare", "mom is cooking -> a mamãe está cozinhando", ["like: subj"]),
    ("fine_w", "i'm fine -> eu estou bem", ANY),
    ("thanks_w", "thanks -> obrigado", ANY),
    ("duration", "for an hour -> por uma hora", ANY),
    ("vinvite", "invite: convidar (para a festa)", ["like: vt_person"]),
    ("days_pl", "on mondays -> às segundas", ANY),
    ("wnow", "cold, hot: the weather now (muito frio)", ANY),
    ("today_w", "today, now: the weather now (está frio hoje)", ANY),
    ("posture", "sitting -> sentado", ["like: size"]),
    ("openclosed", "the museum is closed on mondays -> o museu fecha às segundas",
     ANY),
    ("rain_inf", "rain, snow, be cold: chover, nevar, fazer frio", ANY),
    ("its_now", "put on your coat , it's cold ! -> coloque seu casaco , está frio !",
     ANY),
    ("sbe_sorry", "sorry , i'm late -> desculpe , estou atrasado", ["like: subj"]),
    ("year", "i was born in 2010 . -> eu nasci em 2010 .", ANY),
    ("pay_by", "can i pay by card ? -> posso pagar com cartão ?", ANY),
    ("tell_pro", "tell him the truth -> diga a verdade para ele", ANY),
    ("group_in", "how many students are in your class ? -> quantos alunos há na sua turma ?",
     ANY),
    # ninth session: can of a skill (saber) and of managing (conseguir)
    # twelfth session: a1-dev5's misses
    ("all_state", "everything is fine . -> está tudo bem .", ANY),
    ("at_where", "at school -> na escola (where a first day is)", ANY),
    ("price_n", "it's 20 dollars -> são 20 dólares", ANY),
    ("city_o", "a city with its article: in rio -> no rio", ANY),
    ("currency", "dollars -> dólares (they're 20 euros -> custam 20 euros)",
     ANY),
    ("meal_for", "what's for dinner ? -> o que tem para o jantar ?", ANY),
    ("first_n", "my first day -> o meu primeiro dia", ["like: animal", "f: {p: p3}"]),
    ("ordinal", "first, last before the noun: o meu primeiro dia", ["like: size"]),
    ("yet_state", "the food isn't ready yet -> a comida ainda não está pronta", ["like: size"]),
    # fifth round: dates (my birthday is on may 10 -> meu aniversário é no dia 10 de maio)
    ("month", "may -> maio", ANY),
    ("title", "mrs . smith -> senhora smith", ANY),
    # sixth round (a1-dev9's misses): should, have got in questions,
    # negatives and ailments
    ("should", "you should rest . -> você deveria descansar .", ["like: be"]),
    ("sgot_not", "we haven't got a car . -> nós não temos um carro .", ["like: subj"]),
    ("got_q", "have you got a pen ? -> você tem uma caneta ?", ["like: subj"]),
    ("sgot_ill", "i've got a headache . -> eu estou com dor de cabeça .", ["like: subj"]),
    ("see_doctor", "you should see a doctor -> você deveria ir ao médico", ANY),
    ("day_n", "10 -> 10 (the day of a date)", ANY),
    ("cant_know", "i can't swim . -> eu não sei nadar .", ["like: be"]),
    ("can_manage", "i can see the sea . -> eu consigo ver o mar .", ["like: be"]),
    ("cant_manage", "i can't sleep . -> eu não consigo dormir .", ["like: be"]),
    ("vskill", "what one learns to do: swim, cook (can -> saber)", ["like: vt_person"]),
    ("vmanage", "what one manages to do: sleep, walk (can -> conseguir)", ["like: vt_person"]),
    ("vmanage_t", "see, find, hear, understand + an object (can -> conseguir)",
     ["like: vt_person"]),
    ("vi_can", "vi without vskill and vmanage: i can go -> eu posso ir", ["like: vt_person"]),
    ("vt_can", "vt_thing without vmanage_t and have: we can buy a car -> nós podemos comprar",
     ["like: vt_person"]),
    ("day", "today is monday . -> hoje é segunda-feira .", ANY),
    ("day_is", "today is -> hoje é", ANY),
    ("vdo", "what do you do ? -> o que você faz ?", ["like: vt_person"]),
    ("sorry", "sorry , -> desculpe ,", ANY),
    ("vocative", "good night , mom . -> boa noite , mãe .", ANY),
    ("vpara", "call: ligar para (i called him -> eu liguei para ele)", ["like: vt_person"]),
    ("with_pro", "with me -> comigo", ["like: subj"]),
    ("mood_with", "how one is with someone: angry with me -> bravo comigo", ["like: size"]),
    ("always", "always between be and a state: está sempre cansado",
     ANY),
    ("often_be", "never, still before be: nunca está cansado", ANY),
    ("very_feel", "very hungry -> com muita fome", ANY),
    ("wpast", "it rained -> choveu", ANY),
    ("wfuture", "it's going to rain -> vai chover", ANY),
    ("wvery", "it's very sunny -> está muito ensolarado", ANY),
    ("meal", "lunch is ready ! -> o almoço está pronto !", ANY),
    ("worry", "nervous about the test -> nervoso com a prova", ["like: size"]),
    ("vwork", "the phone doesn't work -> o celular não funciona", ["like: vt_person"]),
    ("go_bare", "go to school -> ir à escola (no article in English)", ANY),
    ("mean_what", "what does this word mean ? -> o que esta palavra significa ?",
     ANY),
    ("far", "far from here -> longe daqui", ANY),
    ("be_fica_not", "the station isn't far -> a estação não fica longe",
     ["en: [pres.sg, pres.pl, past.sg, past.pl]", "pt: [pres.sg, pres.pl, past.sg, past.pl]"]),
    ("best", "before the noun in both: my best friend -> meu melhor amigo", ["like: size"]),
    ("hurts", "hurts -> está doendo", ["en: [pres.sg, pres.pl, past.sg, past.pl]",
                                       "pt: [pres.sg, pres.pl, past.sg, past.pl]"]),
    ("fav", "what is your favorite color ? -> qual é a sua cor favorita ?",
     ["en: [any]", "pt: [m.sg, f.sg, m.pl, f.pl]"]),
    # the fifteenth session's rounds (a1-dev8's misses and the read sets')
    ("manner", "how it is done: horses run very fast -> os cavalos correm muito rápido",
     ANY),
    ("lot", "a lot of water -> muita água (a mass noun's gender)", ["en: [any]", "pt: [m, f]"]),
    ("which_n", "which sport do you like best ? -> de qual esporte você mais gosta ?",
     ANY),
    ("floor_o", "the third floor -> o terceiro andar", ANY),
    ("in_color", "do you have this in blue ? -> você tem este em azul ?", ANY),
    ("pants_n", "these jeans are cheap -> esta calça jeans é barata", ANY),
    ("pair_of", "a pair of shoes -> um par de sapatos", ANY),
    ("carry_n", "take an umbrella -> leve um guarda-chuva", ANY),
    ("soon_w", "a time ahead: i'm going to the doctor tomorrow -> eu vou ao médico amanhã",
     ANY),
    ("vlove", "love, hate, prefer a season: i love summer -> eu amo o verão", ["like: vt_person"]),
    ("day_th", "25th -> 25 (the day of a date, ordinal in English)", ANY),
    ("vwed", "get married: casar-se (my parents got married -> meus pais se casaram)",
     ["like: vt_person"]),
    ("vmoveto", "move house: mudar-se (we moved to a new house -> nós nos mudamos ...)",
     ["like: vt_person"]),
]
# two sentences in one line, as students type them (grammar.yaml's join:):
# "i ' m hungry . can i have an apple ?", "the kitchen is small , but clean"
JOIN = [
    "",
    "# ---- generated: training lines of two sentences ----",
    "join:",
    "  lines: 10000",
    "  max_words: 24",
    "  with:",
    "    - {en: \".\", pt: \".\", weight: 3}",
    "    - {en: \"!\", pt: \"!\"}",
    "    - {en: \"?\", pt: \"?\", after: [\"?\"]}",
    "    - {en: \",\", pt: \",\", weight: 2}",
    "    - {en: \", but\", pt: \", mas\", weight: 2, before: [\".\", \"!\", \"\"]}",
    "    - {en: \"and\", pt: \"e\", before: [\".\", \"!\", \"\"]}",
    "    - {en: \"because\", pt: \"porque\", before: [\".\", \"!\", \"\"]}",
    "    - {en: \", so\", pt: \", então\", before: [\".\", \"!\", \"\"]}",
]
# nouns without an article: water, apples, books (np_bare, after phrases:)
BARE_PHRASE = [
    "  np_bare:                  # no article: i like apples -> eu gosto de maçãs",
    "    head: N",
    "    rules:",
    "      - {weight: 3, slots: {N: mass}, en: N, pt: N}",
    "      - {weight: 2, slots: {N: {sym: count_food, n: pl}}, en: N, pt: N}",
    "      - {slots: {N: {sym: thing, n: pl}}, en: N, pt: N}",
    "      - {slots: {I: {sym: a, agree: N}, N: container, M: mass}, en: I N of M, pt: I N de=of M}",
    "      - {slots: {N: mass}, en: some N, pt: N}",
    "      - {slots: {N: mass}, en: any N, pt: N}",
    "      - {slots: {A: {sym: adj_thing, agree: N}, N: {sym: thing, n: pl}}, en: A N, pt: N A}",
    "      - {slots: {A: {sym: adj_thing, agree: N}, N: {sym: count_food, n: pl}}, en: A N, pt: N A}",
    "  np_person_sg:             # one person: my mother is a nurse -> minha mãe é enfermeira",
    "    head: N",
    "    rules:",
    "      - {weight: 3, slots: {D: {sym: the, agree: N}, N: {sym: person, n: sg}}, en: D N, pt: D N}",
    "      - {weight: 3, slots: {P: {sym: my, agree: N}, N: {sym: person, n: sg}}, en: P N, pt: P N}",
    "      - {weight: 2, slots: {H: his, X: {sym: the, agree: N, link: H}, N: {sym: person, n: sg}}, en: H N, pt: X N H}",
    "      - {slots: {M: {sym: this, agree: N}, N: {sym: person, n: sg}}, en: M N, pt: M N}",
    "      - {slots: {N: name}, en: N, pt: N}",
    "  np_building:              # a building or a room, whose place ficar says",
    "    head: N",
    "    rules:",
    "      - {weight: 3, slots: {D: {sym: the, agree: N}, N: {sym: place, n: [sg, pl]}}, en: D N, pt: D N}",
    "      - {slots: {D: {sym: the, agree: N}, A: {sym: adj_ser, agree: N}, N: {sym: place, n: [sg, pl]}}, en: D A N, pt: D N A}",
    "      - {weight: 2, slots: {P: {sym: my, agree: N}, N: {sym: place, n: [sg, pl]}}, en: P N, pt: P N}",
    "      - {slots: {H: his, X: {sym: the, agree: N, link: H}, N: {sym: place, n: [sg, pl]}}, en: H N, pt: X N H}",
    "      - {slots: {M: {sym: this, agree: N}, N: {sym: place, n: sg}}, en: M N, pt: M N}",
    "  np_event:                 # the party, my birthday",
    "    head: N",
    "    rules:",
    "      - {weight: 3, slots: {D: {sym: the, agree: N}, N: {sym: event, n: sg}}, en: D N, pt: D N}",
    "      - {slots: {P: {sym: my, agree: N}, N: {sym: event, n: sg}}, en: P N, pt: P N}",
    "      - {slots: {M: {sym: this, agree: N}, N: {sym: event, n: sg}}, en: M N, pt: M N}",
]
# British spellings students type, checked as the American word wamerican has
BRITISH = {"maths": "math", "colour": "color", "favourite": "favorite", "neighbour": "neighbor",
           "neighbours": "neighbors", "grey": "gray", "theatre": "theater",
           "centre": "center", "mum": "mom", "mums": "moms", "colours": "colors",
           "theatres": "theaters", "centres": "centers"}
# abbreviations hunspell knows in capitals only (the corpus is lower case),
# their plurals with a small s (TVs)
ABBREV = {"tv"}
# names of countries, which hunspell knows capitalised
PROPER = {"brasil", "portugal", "inglaterra", "frança", "espanha", "itália", "alemanha",
          "japão", "china", "méxico", "argentina", "canadá", "angola", "índia", "áfrica",
          "europa", "estados", "unidos", "londres", "paris", "nova", "york", "lisboa", "roma",
          "madri", "tóquio", "rio", "berlim"}


# foods of nouns.tsv that are not counted in English (no bare plural)
UNCOUNTED = {"breakfast", "lunch", "dinner", "snack", "lettuce", "corn", "steak", "fruit"}


def noun_words(lines, es, cls, skip):
    """[(en sg/pl, pt sg/pl, gender)] of the noun class cls, grammar.yaml's
    words and nouns.tsv's, without those whose English singular is in
    skip."""
    out, seen = [], set()
    inside = False
    for l in lines:
        if re.match(r"^  \w+:", l):
            inside = l.startswith("  %s:" % cls)
        m = re.match(r"^      - \{en: ([^,]+), pt: ([^,]+), g: (\w)\}", l)
        if inside and m:
            out.append(m.groups())
            seen.add(m.group(1).split("/")[0])
    for e in es:
        if e[0] == cls and e[5] not in seen:
            seen.add(e[5])
            out.append(("/".join(en_tokens(w) for w in e[2]), "/".join(e[3]), e[4][3:4]))
    return [o for o in out if o[0].split("/")[0] not in skip]


def count_food(lines, es):
    """The food class without the mass nouns of other.tsv and UNCOUNTED: the
    foods one counts (i like apples, not rices)."""
    return noun_words(lines, es, "food", {e[5] for e in es if e[0] == "mass"} | UNCOUNTED)


def kin(lines, es):
    """The person class without the professions of the job class: she is a
    girl -> ela é uma menina keeps the article, she is a nurse -> ela é
    enfermeira (the job templates) drops it, and one English sentence gets
    one translation."""
    return noun_words(lines, es, "person", {e[5] for e in es if e[0] == "job"})


def when_day(lines, es):
    """The entry lines of the when class, grammar.yaml's and other.tsv's,
    without the seasons and months of the season class: it is cold today
    -> está frio hoje, but it is cold in winter -> faz frio no inverno."""
    season = {e[5] for e in es if e[0] == "season"}
    out = []
    when = False
    for l in lines:
        if re.match(r"^  \w+:", l):
            when = l.startswith("  when:")
        m = re.match(r"^      - \{en: ([^,]+), ", l)
        if when and m and m.group(1) not in season:
            out.append(l)
    out += [yaml_entry(*e[1:5]) for e in es if e[0] == "when" and e[5] not in season]
    return out


def grammar(es):
    src = open(os.path.join(CORPUS, "grammar.yaml"), encoding="utf-8").read()
    # every day -> todos os dias, the form the independent sets list first
    # (todo dia is as correct; lexicon/other.tsv says the other every X so)
    lines = [l.replace("{en: every day, pt: todo dia,", "{en: every day, pt: todos os dias,")
             for l in src.split("\n")]
    head = ["# everyday.yaml - GENERATED by examples/corpus/tools/lexicon.py from",
            "# grammar.yaml, lexicon/*.tsv and lexicon/templates.yaml: do not edit",
            "# (edit those and run the script).  The grammar of en-pt-small: the",
            "# lecture grammar's classes with the everyday words added, verbs with",
            "# the gerund (estar + gerúndio), an optional \".\" ending every template",
            "# of grammar.yaml, and the templates students write (questions, the",
            "# progressive, idioms, infinitives, numbers).  The format is grammar.yaml's",
            "# (its header comment below).", "#"]
    out = []
    by_class = {}
    for e in es:
        by_class.setdefault(e[0], []).append(e)
    can_classes(by_class)
    encl_classes(by_class)
    cls, cls_start = None, 0
    in_templates = False
    i = 0
    while i < len(lines):
        l = lines[i]
        if l.startswith("  t: [pres, past, inf]"):
            l = l.replace("[pres, past, inf]", "[pres, past, inf, ger, imp]")
        if l.startswith("      a as: às"):
            # por + article: obrigado pelo presente, andar pela praia
            out += [l, "      por o: pelo", "      por a: pela", "      por os: pelos",
                    "      por as: pelas"]
            # em + this (neste, nesta), de and em + that (daquele, naquele)
            for prep, pre in (("em", "n"), ("de", "d")):
                for w in ("este", "esta", "estes", "estas", "aquele", "aquela", "aqueles",
                          "aquelas"):
                    if prep == "de" and w.startswith("est"):
                        continue        # grammar.yaml has de este: deste
                    out.append("      %s %s: %s%s" % (prep, w, pre, w))
            # de, em, por + a possessive take its article (gosto do seu gato,
            # no meu quarto, pela sua ajuda); a is left alone (a minha casa
            # is also the article)
            for prep, art in (("de", ("do", "da", "dos", "das")), ("em", ("no", "na", "nos", "nas")),
                              ("por", ("pelo", "pela", "pelos", "pelas"))):
                for poss in (("meu", "minha", "meus", "minhas"), ("seu", "sua", "seus", "suas"),
                             ("nosso", "nossa", "nossos", "nossas")):
                    out += ["      %s %s: %s %s" % (prep, w, a, w) for w, a in zip(poss, art)]
            i += 1
            continue
        if l == "    after: [the, this, strong]":
            l = "    after: [the, this, strong, my]"
        m = re.match(r"^  (\w+):", l)
        if m and not in_templates:
            cls, cls_start = m.group(1), len(out)
        if cls == "prep" and l == "      - {en: on, pt: em cima de}":
            # on the table -> na mesa, on the wall -> na parede: em, as every
            # reference accepts (on top of stays em cima de)
            l = "      - {en: on, pt: em}"
        if cls == "quality" and re.match(r"^      - \{en: (clean|dirty),", l):
            i += 1          # estar says them: tstate (adjectives.tsv)
            continue
        if cls == "mood" and re.match(r"^      - \{en: (happy|sad),", l):
            i += 1          # estar says them of a person: state (adjectives.tsv)
            continue
        if l == "  adj_thing: {union: [size, color, quality]}":
            out += ["  adj_thing: {union: [size, color, quality, tstate]}",
                    "  adj_ser: {union: [size, color, quality]}   # what ser says of things"]
            i += 1
            continue
        if in_templates and l.startswith("  - id: give-to "):
            # to a person is para, as the independent sets write it (ela
            # escreveu uma carta para a avó dela; the lecture grammar says a)
            l = l.replace("ao meu irmão", "para o meu irmão")
        if in_templates and l == "    pt: S V O a=to R":
            l = "    pt: S V O para=to R"
        if in_templates and l == "      N: {sym: person, agree: S, agree_on: [g, n]}":
            # she is my sister (be-my): the professions are job-my-pro's
            l = "      N: {sym: kin, agree: S, agree_on: [g, n]}"
        if in_templates and l == "      A: {sym: adj_thing, agree: S}":
            l = "      A: {sym: adj_ser, agree: S}"
        if l.startswith("templates:"):
            in_templates = True
        if l.startswith("phrases:"):
            # the new classes at the end of the lexicon
            out.pop() if out and out[-1] == "" else None
            out += ["", "  # ---- generated: sentence-final punctuation and modal_de ----",
                    "  stop:                     # \".\", \"!\" or nothing at the end of a sentence",
                    "    en: [any]", "    pt: [any]", "    words:",
                    "      - {en: \".\", pt: \".\", weight: 3}",
                    "      - {en: \"!\", pt: \"!\"}", "      - {en: \"-\", pt: \"-\", weight: 3}",
                    "  aux:                      # do/does/did of questions (English only)",
                    "    en: [pres.p3.sg, pres|inf, past]", "    pt: [any]", "    words:",
                    "      - {en: does/do/did, pt: \"-\"}",
                    "  be_have:                  # how old are you -> quantos anos você tem",
                    "    like: be", "    words:",
                    "      - {en: am/is/are/was/were, pt: tenho/tem/temos/têm/tinha/tinha/tínhamos/tinham}",
                    "  num:                      # numbers: ten years -> dez anos",
                    "    en: [any]", "    pt: [m, f]", "    words:"]
            # the words as often as the 99 digits: two brothers, page 25
            out += ["      - {en: %s, pt: %s%s}" % (e, p, "" if e.isdigit() else ", weight: 7")
                    for e, p in NUMBERS]
            out += ["  weather:                  # it is raining -> está chovendo",
                    "    en: [any]", "    pt: [any]", "    words:"]
            # warm is hot (key: hot), so it's warm and hot is not a sentence
            out += ["      - {en: %s, pt: %s%s}" % (e, p, ", key: hot" if e == "warm" else "")
                    for e, p in WEATHER]
            out += [
                    "  modal_de:                 # + to + infinitive with de: gosto de comer",
                    "    like: vt_person", "    words:"]
            out += [yaml_entry(*e[1:5]) for e in by_class.get("modal_de", [])]
            out += ["  vmove:                    # walk through the park -> andar pelo parque",
                    "    like: vt_person", "    words:"]
            out += [yaml_entry(*e[1:5]) for e in by_class.get("vmove", [])]
            for name, comment, defn in NEW_CLASSES:
                out.append(("  %s:" % name).ljust(28) + "# " + comment)
                out += ["    " + d for d in defn] + ["    words:"]
                out += [yaml_entry(*e[1:5]) for e in by_class.get(name, [])]
            out += ["  count_food:               # foods one counts: i like apples (not rices)",
                    "    like: animal", "    words:"]
            out += ["      - {en: %s, pt: %s, g: %s}" % (e, p, g) for e, p, g in count_food(lines, es)]
            out += ["  when_day:                 # when, but for the seasons and months",
                    "    like: much", "    words:"] + when_day(lines, es)
            out += ["  kin:                      # people who are not a profession: she is a girl",
                    "    like: animal", "    f: {p: p3}", "    words:"]
            out += ["      - {en: %s, pt: %s, g: %s}" % (e, p, g) for e, p, g in kin(lines, es)]
            out += ["  name:                     # my name is anna . -> meu nome é anna .",
                    "    en: [any]", "    pt: [any]", "    words:"]
            out += ["      - {en: %s, pt: %s, g: %s}" % (n, n, "f" if n in FEMALE else "m")
                    for n in NAMES]
            out += ["  surname:                  # good morning , mrs . smith ! -> bom dia , senhora smith !",
                    "    en: [any]", "    pt: [any]", "    words:"]
            out += ["      - {en: %s, pt: %s}" % (n, n) for n in SURNAMES]
            out.append("")
            out.append(l)
            out += BARE_PHRASE
            i += 1
            continue
        if l.startswith("rewrite:"):
            in_templates = False
            out.pop() if out and out[-1] == "" else None
            out.append("")
            out.append("  # ---- generated from lexicon/templates.yaml ----")
            out += open(os.path.join(LEX, "templates.yaml"), encoding="utf-8").read() \
                .rstrip("\n").split("\n")
            out.append("")
        if in_templates:
            if l == "    slots:":
                out.append(l)
                out.append("      Z: stop")
                i += 1
                continue
            mm = re.match(r"^    (en|pt): (.*)$", l)
            if mm:
                l = "    %s: %s Z" % (mm.group(1), mm.group(2))
        if not in_templates and cls == "vt_person" and l.startswith("    en: ["):
            l = "    en: [pres.p3.sg, pres|inf|imp, past, ger]"
        if not in_templates and cls == "vt_person" and l.startswith("         past.p1.sg"):
            l = l.replace("inf]", "inf, ger, imp]")
        if not in_templates and cls in by_class and l.startswith("      - {"):
            if cls in VERB_CLASSES:
                i += 1
                if not lines[i].startswith("      - {"):
                    out += [yaml_entry(*e[1:5]) for e in by_class[cls]]
                continue
            # nouns and adjectives: keep the grammar's, add the new after
            # them; a row of the same word with a weight weighs the grammar's
            # (state tired weight=3: are you tired ?)
            m = re.match(r"^      - \{en: ([^,/}]+)[,/]", l)
            heavy = [e for e in by_class[cls] if m and e[5] == m.group(1) and "weight" in e[4]]
            out.append(yaml_entry(*heavy[0][1:5]) if heavy else l)
            if not lines[i + 1].startswith("      - {"):
                # the class's own grammar.yaml words (not the class before's:
                # state's busy is not quality's)
                have = set(re.findall(r"en: ([^,/}]+)", "\n".join(out[cls_start:])))
                seen = set()
                # an event is not a thing (the party was fun: foi, not era)
                events = {e[5] for e in by_class.get("event", [])} if cls == "thing" else set()
                for e in by_class[cls]:
                    if e[5] in have or e[5] in seen or e[5] in events:
                        continue
                    seen.add(e[5])
                    out.append(yaml_entry(*e[1:5]))
            i += 1
            continue
        out.append(l)
        i += 1
    if out and out[-1] == "":
        out.pop()
    return "\n".join(head + out + JOIN) + "\n"


def hunspell_case(w):
    """w as hunspell knows it: an abbreviation in capitals (TV, its plural
    TVs), a country capitalised (Brasil), any other word as it is."""
    if w in ABBREV:
        return w.upper()
    if w.endswith("s") and w[:-1] in ABBREV:
        return w[:-1].upper() + "s"
    return w.capitalize() if w in PROPER else w


def report(es):
    # the entries' forms and the enclitic ones grammar() derives (vê-la)
    # (a city's name is in neither dictionary: curitiba, porto alegre)
    words = [e for e in es if e[0] not in ("city", "city_o")]
    forms = [f for e in words for f in e[3]]
    forms += [f for e in words if e[0] == "vt_person" for f in enclitic(e[3][8]) or []]
    pt = sorted({w for f in forms for w in f.replace("-", " ").split() if f != "-"})
    # (the English names of currencies are foreign words: reais)
    en = sorted({w for e in words if e[0] != "currency"
                 for f in e[2] for w in f.replace("-", " ").split()})
    bad = 0
    if os.path.exists(HUNSPELL_DIC):
        pt = [hunspell_case(w) for w in pt]
        p = subprocess.run(["hunspell", "-d", "pt_BR", "-l"], input="\n".join(pt),
                           capture_output=True, text=True)
        rej = sorted(set(p.stdout.split()))
        print("Portuguese: %d distinct words checked with hunspell pt_BR, %d rejected%s"
              % (len(pt), len(rej), (": " + " ".join(rej)) if rej else ""))
        bad += len(rej)
    else:
        print("Portuguese: not checked (%s missing: apt-get install hunspell-pt-br)"
              % HUNSPELL_DIC)
    if os.path.exists(WORDS):
        known = set(w.strip().lower() for w in open(WORDS, encoding="utf-8", errors="replace"))
        rej = [w for w in en if w not in known and BRITISH.get(w) not in known
               and not w.isdigit() and not re.fullmatch(r"\d+(st|nd|rd|th)", w)
               and any(c.isalpha() for c in w)]
        print("English: %d distinct words checked with wamerican, %d rejected%s"
              % (len(en), len(rej), (": " + " ".join(rej)) if rej else ""))
        bad += len(rej)
    else:
        print("English: not checked (%s missing: apt-get install wamerican)" % WORDS)
    return bad


def main():
    check = "--check" in sys.argv
    es = entries()
    ftext, nfd = forms_tsv(es)
    gtext = grammar(es)
    targets = [(os.path.join(LEX, "forms.tsv"), ftext),
               (os.path.join(CORPUS, "everyday.yaml"), gtext)]
    status = 0
    for path, text in targets:
        if check:
            old = open(path, encoding="utf-8").read() if os.path.exists(path) else None
            if old != text:
                print("%s is not what lexicon.py writes (run it)" % path)
                status = 1
        else:
            open(path, "w", encoding="utf-8").write(text)
    print("%d entries (%d nouns, %d adjectives, %d verbs); %d pairs attested in "
          "dict-freedict-eng-por" % (len(es), sum(e[1] == "noun" for e in es),
                                     sum(e[1] == "adj" for e in es),
                                     sum(e[1] == "verb" for e in es), nfd))
    if "--report" in sys.argv and report(es):
        status = 1
    return status


if __name__ == "__main__":
    sys.exit(main())
