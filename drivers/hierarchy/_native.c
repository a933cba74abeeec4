/* The XML walks of drivers/hierarchy in C: what a step asks of a parsed lxml tree, answered
 * over libxml2's nodes without a Python call per node.
 *
 * Optional: drivers/hierarchy/native.py loads this module when it was built and otherwise
 * falls back to the same walks in Python (drivers/hierarchy/walk.py), which stay the reference;
 * tests/parsers run every query both ways and compare.
 *
 * It reads lxml's trees through lxml's public C API (lxml/etree_api.h: the element struct, and
 * elementFactory / attributeValueFromNsName, called through the function table lxml exports),
 * and only reads libxml2's node structs (no libxml2 function is called, so nothing here links
 * against libxml2). It never changes a tree. Every argument is checked; a plan is checked
 * once, when it is compiled.
 *
 * Functions (their Python signatures in _native.pyi):
 *   compile_plan(plan)           a walk plan (see walk.py / schema.query_plan) made ready for next_match
 *   next_match(top, after, plan) the first element after `after` under `top`, in document order,
 *                                that may satisfy the plan (a superset: see slot_holds), or None
 *   scan(root, bounds)           (elements under root, root included; whether a descendant's
 *                                `bounds` attribute is not plainly "[int,int][int,int]")
 *   values(element, names)       the element's attributes `names`, as lxml's get() reads them
 *                                (None where absent)
 *   compile_builder(spec)        an element builder's table (schema.native_builder) made ready for build
 *   build(builder, source, node) the LazyElement of `node`, as schema's Python builder makes it
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <string.h>
#include <structmember.h>
#include <libxml/tree.h>
#include "lxml-version.h"
#include "etree_api.h"

#define PLAN_CAPSULE "amc.drivers.hierarchy._native.plan"
#define BUILDER_CAPSULE "amc.drivers.hierarchy._native.builder"

typedef struct {
    int equals;         /* 1: the value equals the needle; 0: it contains the needle */
    const char *needle; /* UTF-8, owned by the plan's bytes objects */
} Test;

typedef struct {
    const char *attr; /* attribute name, or NULL for the element's own name */
    int named;        /* the element's name stands in when the attribute is absent or empty */
    Py_ssize_t ntests;
    Test *tests;
} Slot;

typedef struct {
    Py_ssize_t nslots;
    Slot *slots;
} Group;

typedef struct {
    Py_ssize_t ngroups;
    Group *groups;
    PyObject *keep; /* the plan tuple: it owns every string above */
} Plan;

static PyTypeObject *element_type; /* lxml.etree._Element */

/* --- plans ------------------------------------------------------------------------------ */

static void plan_free(Plan *p) {
    if (p == NULL) return;
    if (p->groups != NULL) {
        for (Py_ssize_t g = 0; g < p->ngroups; g++) {
            Group *G = &p->groups[g];
            if (G->slots == NULL) continue;
            for (Py_ssize_t s = 0; s < G->nslots; s++) PyMem_Free(G->slots[s].tests);
            PyMem_Free(G->slots);
        }
        PyMem_Free(p->groups);
    }
    Py_XDECREF(p->keep);
    PyMem_Free(p);
}

static void plan_capsule_free(PyObject *capsule) {
    plan_free((Plan *)PyCapsule_GetPointer(capsule, PLAN_CAPSULE));
}

/* What a TypeError names as malformed. */
#define PLAN "walk plan"
#define SPEC "builder spec"
#define ARGUMENT "argument"

static int malformed(const char *kind, const char *what) {
    PyErr_Format(PyExc_TypeError, "malformed %s: %s", kind, what);
    return -1;
}

/* A bytes object without NUL (C strings end at the first one), or -1 with TypeError. */
static int c_string(PyObject *obj, const char **out, const char *kind, const char *what) {
    if (!PyBytes_Check(obj)) return malformed(kind, what);
    if ((Py_ssize_t)strlen(PyBytes_AS_STRING(obj)) != PyBytes_GET_SIZE(obj)) return malformed(kind, what);
    *out = PyBytes_AS_STRING(obj);
    return 0;
}

static int flag(PyObject *obj, int *out, const char *what) {
    if (!PyBool_Check(obj)) return malformed(PLAN, what);
    *out = obj == Py_True;
    return 0;
}

static int fill_slot(Slot *S, PyObject *slot) {
    if (!PyTuple_Check(slot) || PyTuple_GET_SIZE(slot) != 3) return malformed(PLAN, "a slot is (attribute, named, tests)");
    PyObject *attr = PyTuple_GET_ITEM(slot, 0), *tests = PyTuple_GET_ITEM(slot, 2);
    if (attr == Py_None) S->attr = NULL;
    else if (c_string(attr, &S->attr, PLAN, "an attribute name is bytes without NUL, or None") < 0) return -1;
    if (flag(PyTuple_GET_ITEM(slot, 1), &S->named, "named is a bool") < 0) return -1;
    if (!PyTuple_Check(tests)) return malformed(PLAN, "tests are a tuple");
    S->ntests = PyTuple_GET_SIZE(tests);
    S->tests = PyMem_Calloc(S->ntests ? (size_t)S->ntests : 1, sizeof(Test));
    if (S->tests == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t t = 0; t < S->ntests; t++) {
        PyObject *test = PyTuple_GET_ITEM(tests, t);
        if (!PyTuple_Check(test) || PyTuple_GET_SIZE(test) != 2) return malformed(PLAN, "a test is (equals, needle)");
        if (flag(PyTuple_GET_ITEM(test, 0), &S->tests[t].equals, "equals is a bool") < 0) return -1;
        if (c_string(PyTuple_GET_ITEM(test, 1), &S->tests[t].needle, PLAN, "a needle is bytes without NUL") < 0)
            return -1;
    }
    return 0;
}

static PyObject *compile_plan(PyObject *module, PyObject *plan) {
    if (!PyTuple_Check(plan)) {
        malformed(PLAN, "the plan is a tuple of groups");
        return NULL;
    }
    Plan *p = PyMem_Calloc(1, sizeof(Plan));
    if (p == NULL) return PyErr_NoMemory();
    Py_INCREF(plan);
    p->keep = plan;
    p->ngroups = PyTuple_GET_SIZE(plan);
    p->groups = PyMem_Calloc(p->ngroups ? (size_t)p->ngroups : 1, sizeof(Group));
    if (p->groups == NULL) {
        plan_free(p);
        return PyErr_NoMemory();
    }
    for (Py_ssize_t g = 0; g < p->ngroups; g++) {
        PyObject *group = PyTuple_GET_ITEM(plan, g);
        Group *G = &p->groups[g];
        if (!PyTuple_Check(group)) {
            malformed(PLAN, "a group is a tuple of slots");
            plan_free(p);
            return NULL;
        }
        G->nslots = PyTuple_GET_SIZE(group);
        G->slots = PyMem_Calloc(G->nslots ? (size_t)G->nslots : 1, sizeof(Slot));
        if (G->slots == NULL) {
            G->nslots = 0;
            plan_free(p);
            return PyErr_NoMemory();
        }
        for (Py_ssize_t s = 0; s < G->nslots; s++) {
            if (fill_slot(&G->slots[s], PyTuple_GET_ITEM(group, s)) < 0) {
                plan_free(p);
                return NULL;
            }
        }
    }
    PyObject *capsule = PyCapsule_New(p, PLAN_CAPSULE, plan_capsule_free);
    if (capsule == NULL) plan_free(p);
    return capsule;
}

/* --- reading nodes ------------------------------------------------------------------------ */

/* The attribute `name` (no namespace, as lxml's get() reads a plain name): 1 and its value
 * (possibly ""), 0 when absent, -1 when its value is not one text node (lxml would join the
 * parts; the caller then cannot tell and lets the node through). */
static int attr_value(const xmlNode *node, const char *name, const char **out) {
    for (const xmlAttr *a = node->properties; a != NULL; a = a->next) {
        if (a->ns != NULL || a->name == NULL || strcmp((const char *)a->name, name) != 0) continue;
        const xmlNode *c = a->children;
        if (c == NULL) {
            *out = "";
            return 1;
        }
        if (c->type == XML_TEXT_NODE && c->next == NULL && c->content != NULL) {
            *out = (const char *)c->content;
            return 1;
        }
        return -1;
    }
    return 0;
}

/* Whether a slot's tests may hold on `node`: the Python walker's
 *     (v := get(attr) [or node.tag]) and (v == n0 or n1 in v ...)
 * read over libxml2's structs. Where this cannot read the value exactly as lxml would (an
 * attribute value of several nodes, a namespaced name, which lxml spells "{uri}name") it says
 * yes: the answer is a superset and the caller applies its exact rule to each element. */
static int slot_holds(const xmlNode *node, const Slot *S) {
    const char *v = NULL;
    int found = 0;
    if (S->attr != NULL) {
        found = attr_value(node, S->attr, &v);
        if (found < 0) return 1;
    }
    if (S->attr == NULL || (S->named && (found == 0 || v[0] == '\0'))) {
        if (node->ns != NULL || node->name == NULL) return 1;
        v = (const char *)node->name;
    } else if (found == 0) {
        return 0;
    }
    if (v[0] == '\0') return 0;
    for (Py_ssize_t t = 0; t < S->ntests; t++) {
        const Test *T = &S->tests[t];
        if (T->equals ? strcmp(v, T->needle) == 0 : strstr(v, T->needle) != NULL) return 1;
    }
    return 0;
}

static int node_holds(const xmlNode *node, const Plan *p) {
    for (Py_ssize_t g = 0; g < p->ngroups; g++) {
        const Group *G = &p->groups[g];
        int holds = 0;
        for (Py_ssize_t s = 0; s < G->nslots && !holds; s++) holds = slot_holds(node, &G->slots[s]);
        if (!holds) return 0;
    }
    return 1;
}

static xmlNode *first_element(xmlNode *n) {
    while (n != NULL && n->type != XML_ELEMENT_NODE) n = n->next;
    return n;
}

/* The element after `node` in document order within `top`'s subtree (`node` inside it), or NULL. */
static xmlNode *next_element(xmlNode *node, const xmlNode *top) {
    xmlNode *child = first_element(node->children);
    if (child != NULL) return child;
    for (xmlNode *n = node; n != NULL && n != top; n = n->parent) {
        xmlNode *sibling = first_element(n->next);
        if (sibling != NULL) return sibling;
    }
    return NULL;
}

static struct LxmlElement *as_element(PyObject *obj, const char *what) {
    if (!PyObject_TypeCheck(obj, element_type)) {
        PyErr_Format(PyExc_TypeError, "%s must be an lxml element, not %.80s", what, Py_TYPE(obj)->tp_name);
        return NULL;
    }
    struct LxmlElement *el = (struct LxmlElement *)obj;
    if (el->_c_node == NULL || el->_doc == NULL) {
        PyErr_Format(PyExc_ValueError, "%s is not attached to a document", what);
        return NULL;
    }
    if (el->_c_node->type != XML_ELEMENT_NODE) { /* a comment, a processing instruction, an entity */
        PyErr_Format(PyExc_TypeError, "%s must be an element, not a %.80s", what, Py_TYPE(obj)->tp_name);
        return NULL;
    }
    return el;
}

/* --- the module's functions ------------------------------------------------------------------- */

static PyObject *next_match(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 3) {
        PyErr_SetString(PyExc_TypeError, "next_match(top, after, plan) takes 3 arguments");
        return NULL;
    }
    struct LxmlElement *top = as_element(args[0], "top"), *after;
    if (top == NULL || (after = as_element(args[1], "after")) == NULL) return NULL;
    Plan *p = PyCapsule_GetPointer(args[2], PLAN_CAPSULE);
    if (p == NULL) return NULL;
    const xmlNode *up = after->_c_node;
    while (up != NULL && up != top->_c_node) up = up->parent;
    if (up == NULL) {
        PyErr_SetString(PyExc_ValueError, "after is not top or an element under it");
        return NULL;
    }
    xmlNode *n = after->_c_node;
    while ((n = next_element(n, top->_c_node)) != NULL) {
        if (node_holds(n, p)) return (PyObject *)elementFactory(top->_doc, n);
    }
    Py_RETURN_NONE;
}

static int digits(const char **s) {
    const char *start = *s;
    while (**s >= '0' && **s <= '9') (*s)++;
    return *s > start;
}

static int number(const char **s) {
    if (**s == '-') (*s)++;
    return digits(s);
}

static int expect(const char **s, char c) {
    if (**s != c) return 0;
    (*s)++;
    return 1;
}

/* Exactly "[int,int][int,int]" (optional minus signs, ASCII digits), which android_bounds
 * always reads; anything else is left to it. */
static int plain_bounds(const char *s) {
    return expect(&s, '[') && number(&s) && expect(&s, ',') && number(&s) && expect(&s, ']') && expect(&s, '[') &&
           number(&s) && expect(&s, ',') && number(&s) && expect(&s, ']') && *s == '\0';
}

static PyObject *scan(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "scan(root, bounds) takes 2 arguments");
        return NULL;
    }
    struct LxmlElement *root = as_element(args[0], "root");
    if (root == NULL) return NULL;
    const char *bounds = NULL;
    if (args[1] != Py_None && c_string(args[1], &bounds, ARGUMENT, "bounds is an attribute name (bytes) or None") < 0)
        return NULL;
    Py_ssize_t count = 1;
    int odd = 0;
    for (xmlNode *n = next_element(root->_c_node, root->_c_node); n != NULL; n = next_element(n, root->_c_node)) {
        count++;
        if (bounds != NULL && !odd) {
            const char *v;
            int found = attr_value(n, bounds, &v);
            odd = found < 0 || (found > 0 && !plain_bounds(v));
        }
    }
    return Py_BuildValue("(nO)", count, odd ? Py_True : Py_False);
}

static PyObject *str_true, *str_false; /* the two values half of an element's attributes hold */

/* The attribute `name` as lxml's get() reads it: None when absent, else its value as str. The
 * common case (a value of one text node) is decoded here; anything else, and a document with a
 * DTD (whose declared defaults lxml would report), is read by lxml itself. */
static PyObject *read_value(xmlNode *node, const char *name) {
    const char *v;
    int found = attr_value(node, name, &v);
    if (found < 0 || (found == 0 && node->doc != NULL && node->doc->intSubset != NULL))
        return attributeValueFromNsName(node, NULL, (const xmlChar *)name);
    if (found == 0) Py_RETURN_NONE;
    if (strcmp(v, "false") == 0) return Py_NewRef(str_false);
    if (strcmp(v, "true") == 0) return Py_NewRef(str_true);
    return PyUnicode_DecodeUTF8(v, (Py_ssize_t)strlen(v), "strict");
}

static PyObject *values(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "values(element, names) takes 2 arguments");
        return NULL;
    }
    struct LxmlElement *el = as_element(args[0], "element");
    if (el == NULL) return NULL;
    PyObject *names = args[1];
    if (!PyTuple_Check(names)) {
        PyErr_SetString(PyExc_TypeError, "names must be a tuple of bytes");
        return NULL;
    }
    Py_ssize_t n = PyTuple_GET_SIZE(names);
    PyObject *out = PyTuple_New(n);
    if (out == NULL) return NULL;
    for (Py_ssize_t i = 0; i < n; i++) {
        const char *name;
        if (c_string(PyTuple_GET_ITEM(names, i), &name, ARGUMENT, "an attribute name is bytes without NUL") < 0) {
            Py_DECREF(out);
            return NULL;
        }
        PyObject *value = read_value(el->_c_node, name);
        if (value == NULL) {
            Py_DECREF(out);
            return NULL;
        }
        PyTuple_SET_ITEM(out, i, value);
    }
    return out;
}

/* --- elements ----------------------------------------------------------------------------------- */

/* What an element builder reads and where it puts it: schema._builder's straight-line code as a
 * table (see native_builder in schema.py, which makes it from the same Schema). */
#define N_SLOTS 18 /* the fields new_view fills, in its order, then _source and _node */
#define N_FLAGS 7

typedef struct {
    PyObject *cls;                 /* LazyElement */
    PyObject *descrs[N_SLOTS];     /* the slot descriptors */
    Py_ssize_t nnames;
    const char **names;            /* every attribute read, each once */
    Py_ssize_t *field[5];          /* type, text, label, identifier, value: indexes, -1 ended */
    Py_ssize_t *bounds;            /* the bounds function's arguments: indexes, -1 ended */
    PyObject *bounds_fn;
    Py_ssize_t enabled;
    Py_ssize_t *visible;           /* indexes, -1 ended */
    Py_ssize_t flags[N_FLAGS];     /* an index, or -1: the format has no such flag */
    PyObject *switches;            /* a frozenset of types whose checked is value == "1", or None */
    PyObject *attributes;          /* NodeAttributes */
    PyObject *keep;                /* the spec tuple: owns the names */
} Builder;

static void builder_free(Builder *b) {
    if (b == NULL) return;
    PyMem_Free(b->names);
    for (int f = 0; f < 5; f++) PyMem_Free(b->field[f]);
    PyMem_Free(b->bounds);
    PyMem_Free(b->visible);
    Py_XDECREF(b->keep);
    PyMem_Free(b);
}

static void builder_capsule_free(PyObject *capsule) {
    builder_free((Builder *)PyCapsule_GetPointer(capsule, BUILDER_CAPSULE));
}

/* A tuple of indexes into the names as a -1-ended C array. */
static int indexes(PyObject *obj, Py_ssize_t nnames, Py_ssize_t **out) {
    if (!PyTuple_Check(obj)) return malformed(SPEC, "indexes are a tuple of ints");
    Py_ssize_t n = PyTuple_GET_SIZE(obj);
    *out = PyMem_Calloc((size_t)n + 1, sizeof(Py_ssize_t));
    if (*out == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        Py_ssize_t k = PyLong_AsSsize_t(PyTuple_GET_ITEM(obj, i));
        if (k == -1 && PyErr_Occurred()) return -1;
        if (k < 0 || k >= nnames) return malformed(SPEC, "an index is out of range");
        (*out)[i] = k;
    }
    (*out)[n] = -1;
    return 0;
}

static int one_index(PyObject *obj, Py_ssize_t nnames, int may_be_none, Py_ssize_t *out) {
    if (obj == Py_None && may_be_none) {
        *out = -1;
        return 0;
    }
    Py_ssize_t k = PyLong_AsSsize_t(obj);
    if (k == -1 && PyErr_Occurred()) return -1;
    if (k < 0 || k >= nnames) return malformed(SPEC, "an index is out of range");
    *out = k;
    return 0;
}

/* compile_builder((cls, descriptors, names, fields, (bounds, fn), enabled, visible, flags, switches,
 *                  attributes)) */
static PyObject *compile_builder(PyObject *module, PyObject *spec) {
    if (!PyTuple_Check(spec) || PyTuple_GET_SIZE(spec) != 10) {
        malformed(SPEC, "a builder spec is a tuple of 10");
        return NULL;
    }
    Builder *b = PyMem_Calloc(1, sizeof(Builder));
    if (b == NULL) return PyErr_NoMemory();
    Py_INCREF(spec);
    b->keep = spec;
    PyObject *cls = PyTuple_GET_ITEM(spec, 0), *descrs = PyTuple_GET_ITEM(spec, 1);
    PyObject *names = PyTuple_GET_ITEM(spec, 2), *fields = PyTuple_GET_ITEM(spec, 3);
    PyObject *bounds = PyTuple_GET_ITEM(spec, 4), *flags = PyTuple_GET_ITEM(spec, 7);
    if (!PyType_Check(cls)) {
        malformed(SPEC, "the element class is a type");
        goto bad;
    }
    b->cls = cls;
    if (!PyTuple_Check(descrs) || PyTuple_GET_SIZE(descrs) != N_SLOTS) {
        malformed(SPEC, "the slot descriptors are a tuple of 18");
        goto bad;
    }
    for (int i = 0; i < N_SLOTS; i++) {
        PyObject *d = PyTuple_GET_ITEM(descrs, i);
        if (Py_TYPE(d) != &PyMemberDescr_Type || Py_TYPE(d)->tp_descr_set == NULL ||
            !PyType_IsSubtype((PyTypeObject *)cls, PyDescr_TYPE(d))) {
            malformed(SPEC, "a slot descriptor is a slot of the element class");
            goto bad;
        }
        b->descrs[i] = d;
    }
    if (!PyTuple_Check(names)) {
        malformed(SPEC, "names are a tuple of bytes");
        goto bad;
    }
    b->nnames = PyTuple_GET_SIZE(names);
    b->names = PyMem_Calloc((size_t)b->nnames + 1, sizeof(char *));
    if (b->names == NULL) {
        PyErr_NoMemory();
        goto bad;
    }
    for (Py_ssize_t i = 0; i < b->nnames; i++)
        if (c_string(PyTuple_GET_ITEM(names, i), &b->names[i], SPEC, "a name is bytes without NUL") < 0) goto bad;
    if (!PyTuple_Check(fields) || PyTuple_GET_SIZE(fields) != 5) {
        malformed(SPEC, "fields are five tuples of indexes");
        goto bad;
    }
    for (int f = 0; f < 5; f++)
        if (indexes(PyTuple_GET_ITEM(fields, f), b->nnames, &b->field[f]) < 0) goto bad;
    if (!PyTuple_Check(bounds) || PyTuple_GET_SIZE(bounds) != 2 || !PyCallable_Check(PyTuple_GET_ITEM(bounds, 1))) {
        malformed(SPEC, "bounds is (indexes, function)");
        goto bad;
    }
    if (indexes(PyTuple_GET_ITEM(bounds, 0), b->nnames, &b->bounds) < 0) goto bad;
    b->bounds_fn = PyTuple_GET_ITEM(bounds, 1);
    if (one_index(PyTuple_GET_ITEM(spec, 5), b->nnames, 0, &b->enabled) < 0) goto bad;
    if (indexes(PyTuple_GET_ITEM(spec, 6), b->nnames, &b->visible) < 0) goto bad;
    if (!PyTuple_Check(flags) || PyTuple_GET_SIZE(flags) != N_FLAGS) {
        malformed(SPEC, "flags are seven indexes or None");
        goto bad;
    }
    for (int i = 0; i < N_FLAGS; i++)
        if (one_index(PyTuple_GET_ITEM(flags, i), b->nnames, 1, &b->flags[i]) < 0) goto bad;
    b->switches = PyTuple_GET_ITEM(spec, 8);
    if (b->switches != Py_None && !PyFrozenSet_Check(b->switches)) {
        malformed(SPEC, "switches are a frozenset or None");
        goto bad;
    }
    b->attributes = PyTuple_GET_ITEM(spec, 9);
    if (!PyCallable_Check(b->attributes)) {
        malformed(SPEC, "attributes is a callable");
        goto bad;
    }
    PyObject *capsule = PyCapsule_New(b, BUILDER_CAPSULE, builder_capsule_free);
    if (capsule == NULL) builder_free(b);
    return capsule;
bad:
    builder_free(b);
    return NULL;
}

/* Python's (a or b or ... or fallback) over the values: the first non-empty one. */
static PyObject *first_of(PyObject **vals, const Py_ssize_t *idx, PyObject *fallback) {
    for (; *idx >= 0; idx++) {
        PyObject *v = vals[*idx];
        if (v != Py_None && PyUnicode_GET_LENGTH(v) > 0) return v;
    }
    return fallback;
}

/* Whether a value (str or None) is `text`; read_value hands out one object for each of
 * "true" and "false", whatever lxml read otherwise compares by value. */
static int is_text(PyObject *v, PyObject *same, const char *text) {
    if (v == same) return 1;
    if (v == Py_None) return 0;
    return PyUnicode_CompareWithASCIIString(v, text) == 0;
}

static int is_false(PyObject *v) { return is_text(v, str_false, "false"); }

/* schema's FLAG (BOOL.get): "true" and "false" are flags, anything else None. */
static PyObject *flag_of(PyObject *v) {
    if (is_text(v, str_true, "true")) return Py_True;
    if (is_false(v)) return Py_False;
    return Py_None;
}

static PyObject *build(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 3) {
        PyErr_SetString(PyExc_TypeError, "build(builder, source, node) takes 3 arguments");
        return NULL;
    }
    Builder *b = PyCapsule_GetPointer(args[0], BUILDER_CAPSULE);
    if (b == NULL) return NULL;
    struct LxmlElement *el = as_element(args[2], "node");
    if (el == NULL) return NULL;
    PyObject *vals_small[32], **vals = vals_small;
    if (b->nnames > 32) {
        vals = PyMem_Calloc((size_t)b->nnames, sizeof(PyObject *));
        if (vals == NULL) return PyErr_NoMemory();
    }
    PyObject *out = NULL, *tag = NULL, *box = NULL, *attrs = NULL, *checked = NULL;
    PyObject *slot[N_SLOTS];
    Py_ssize_t read = 0;
    for (; read < b->nnames; read++) {
        vals[read] = read_value(el->_c_node, b->names[read]);
        if (vals[read] == NULL) goto done;
    }
    PyObject *type = first_of(vals, b->field[0], NULL);
    if (type == NULL) {
        tag = namespacedName(el->_c_node);
        if (tag == NULL) goto done;
        type = tag;
    }
    PyObject *value = first_of(vals, b->field[4], Py_None);
    PyObject *bargs[4];
    Py_ssize_t nb = 0;
    for (const Py_ssize_t *i = b->bounds; *i >= 0 && nb < 4; i++) bargs[nb++] = vals[*i];
    box = PyObject_Vectorcall(b->bounds_fn, bargs, (size_t)nb, NULL);
    if (box == NULL) goto done;
    attrs = PyObject_CallOneArg(b->attributes, args[2]);
    if (attrs == NULL) goto done;
    slot[0] = type;
    slot[1] = first_of(vals, b->field[1], Py_None);
    slot[2] = first_of(vals, b->field[2], Py_None);
    slot[3] = first_of(vals, b->field[3], Py_None);
    slot[4] = value;
    slot[5] = box;
    slot[6] = is_false(vals[b->enabled]) ? Py_False : Py_True;
    slot[7] = is_false(first_of(vals, b->visible, Py_None)) ? Py_False : Py_True;
    for (int i = 0; i < N_FLAGS; i++) slot[8 + i] = b->flags[i] < 0 ? Py_None : flag_of(vals[b->flags[i]]);
    if (b->switches != Py_None) { /* a switch's checked comes from its value */
        int is_switch = PySet_Contains(b->switches, type);
        if (is_switch < 0) goto done;
        checked = is_switch ? PyBool_FromLong(value != Py_None && PyUnicode_CompareWithASCIIString(value, "1") == 0)
                            : Py_NewRef(Py_None);
        slot[12] = checked;
    }
    slot[15] = attrs;
    slot[16] = args[1];
    slot[17] = args[2];
    out = ((PyTypeObject *)b->cls)->tp_alloc((PyTypeObject *)b->cls, 0);
    if (out == NULL) goto done;
    for (int i = 0; i < N_SLOTS; i++) {
        if (Py_TYPE(b->descrs[i])->tp_descr_set(b->descrs[i], out, slot[i]) < 0) {
            Py_CLEAR(out);
            goto done;
        }
    }
done:
    for (Py_ssize_t i = 0; i < read; i++) Py_DECREF(vals[i]);
    if (vals != vals_small) PyMem_Free(vals);
    Py_XDECREF(tag);
    Py_XDECREF(box);
    Py_XDECREF(attrs);
    Py_XDECREF(checked);
    return out;
}

static PyMethodDef methods[] = {
    {"compile_plan", compile_plan, METH_O, "A walk plan made ready for next_match."},
    {"next_match", (PyCFunction)(void (*)(void))next_match, METH_FASTCALL,
     "The next element after `after` under `top` that may satisfy the plan, or None."},
    {"scan", (PyCFunction)(void (*)(void))scan, METH_FASTCALL,
     "(elements under root, root included; whether a descendant's bounds is not plain)."},
    {"values", (PyCFunction)(void (*)(void))values, METH_FASTCALL, "The element's attributes `names`."},
    {"compile_builder", compile_builder, METH_O, "An element builder's table made ready for build."},
    {"build", (PyCFunction)(void (*)(void))build, METH_FASTCALL, "The element of `node` (see schema.native_builder)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT, "_native", "drivers/hierarchy's XML walks in C (see native.py).", -1, methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__native(void) {
    if (import_lxml__etree() < 0) return NULL;
    PyObject *etree = PyImport_ImportModule("lxml.etree");
    if (etree == NULL) return NULL;
    PyObject *type = PyObject_GetAttrString(etree, "_Element");
    Py_DECREF(etree);
    if (type == NULL) return NULL;
    if (!PyType_Check(type)) {
        Py_DECREF(type);
        PyErr_SetString(PyExc_ImportError, "lxml.etree._Element is not a type");
        return NULL;
    }
    element_type = (PyTypeObject *)type; /* kept for the life of the process, as the strings below */
    str_true = PyUnicode_InternFromString("true");
    str_false = PyUnicode_InternFromString("false");
    if (str_true == NULL || str_false == NULL) return NULL;
    PyObject *module = PyModule_Create(&module_def);
    if (module == NULL) return NULL;
    if (PyModule_AddStringConstant(module, "LXML_BUILT_WITH", LXML_VERSION_STRING) < 0) {
        Py_DECREF(module);
        return NULL;
    }
    return module;
}
